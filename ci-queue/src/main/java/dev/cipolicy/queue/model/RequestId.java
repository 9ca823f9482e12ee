package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;

/**
 * The identity a store gives a request when it is submitted: a positive number, unique in the store and
 * increasing in submission order. Ids need not be dense.
 *
 * @param value a positive number
 */
public record RequestId(long value) implements Comparable<RequestId> {

  /** Checks that the value is positive. */
  public RequestId {
    Checks.positive(value, "request id");
  }

  /**
   * Creates the id.
   *
   * @param value a positive number
   * @return the id
   */
  public static RequestId of(long value) {
    return new RequestId(value);
  }

  @Override
  public int compareTo(RequestId other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return "request " + value;
  }
}

package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;

/**
 * The identity a store gives a job when it creates it: a positive number, unique in the store and
 * increasing in creation order (claims hand out jobs in this order). Ids need not be dense.
 *
 * @param value a positive number
 */
public record JobId(long value) implements Comparable<JobId> {

  /** Checks that the value is positive. */
  public JobId {
    Checks.positive(value, "job id");
  }

  /**
   * Creates the id.
   *
   * @param value a positive number
   * @return the id
   */
  public static JobId of(long value) {
    return new JobId(value);
  }

  @Override
  public int compareTo(JobId other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return "job " + value;
  }
}

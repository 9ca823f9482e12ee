package dev.cipolicy.gate;

/**
 * The identity a {@link MetricHistoryStore} gives a written run; increasing in write order.
 *
 * @param value a positive number
 */
public record RunId(long value) {
  /** Validates the value. */
  public RunId {
    if (value < 1) {
      throw new IllegalArgumentException("a run id is positive, got " + value);
    }
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}

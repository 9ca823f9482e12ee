package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;

/**
 * One point of a metric series as the test recorded it. The value may be NaN or infinite: a record is
 * input, and selection turns a non-finite value into an {@code ERROR} verdict.
 *
 * @param step the training step, {@code ≥ 0}
 * @param value the recorded value
 */
public record MetricPoint(int step, double value) {
  /** Validates the step. */
  public MetricPoint {
    if (step < 0) {
      throw new InvalidInputException("a metric point needs a step >= 0, got " + step);
    }
  }
}

package dev.cipolicy.gate;

import java.time.Instant;

/**
 * One stored value of a coordinate.
 *
 * @param runId the run that wrote it
 * @param createdAt when that run was written
 * @param value the value, always finite
 * @param trusted whether the value is part of the baseline (untrusted values are kept, flagged, never
 *     averaged)
 */
public record HistorySample(RunId runId, Instant createdAt, double value, boolean trusted) {
  /** Validates the components. */
  public HistorySample {
    if (runId == null || createdAt == null || !Double.isFinite(value)) {
      throw new IllegalArgumentException("a history sample needs a run id, a time and a finite value");
    }
  }
}

package dev.cipolicy.queue.model;

import java.util.Locale;

/**
 * How a completed request went, judged on its own jobs when it completed: never a silent success.
 *
 * <p>{@link #SUCCESS} when no job failed; {@link #FAILURE} when no required job succeeded and at least
 * one failed; {@link #PARTIAL_FAILURE} otherwise (some job failed, optional ones included).
 */
public enum Outcome {
  /** No job of the request failed (a request without jobs succeeds). */
  SUCCESS,
  /** Some jobs failed and some required jobs succeeded, or only optional jobs failed. */
  PARTIAL_FAILURE,
  /** Required jobs failed and none succeeded. */
  FAILURE;

  /**
   * The name used in text and JSON output.
   *
   * @return e.g. {@code partial_failure}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The outcome for the given counts of a request's terminal jobs.
   *
   * @param requiredSucceeded required jobs that succeeded
   * @param requiredFailed required jobs that failed
   * @param anyFailed jobs that failed, optional ones included
   * @return the outcome
   */
  public static Outcome of(int requiredSucceeded, int requiredFailed, int anyFailed) {
    if (anyFailed == 0) {
      return SUCCESS;
    }
    if (requiredSucceeded == 0 && requiredFailed > 0) {
      return FAILURE;
    }
    return PARTIAL_FAILURE;
  }
}

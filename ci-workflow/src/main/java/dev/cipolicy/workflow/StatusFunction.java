package dev.cipolicy.workflow;

/** The status-check functions of a job's {@code if}. */
public enum StatusFunction {
  /** {@code success()}: every job in the transitive {@code needs} closure succeeded and the run is not cancelled. */
  SUCCESS,
  /** {@code failure()}: some job in the transitive {@code needs} closure failed. */
  FAILURE,
  /** {@code cancelled()}: the run was cancelled. */
  CANCELLED,
  /** {@code always()}: true. */
  ALWAYS
}

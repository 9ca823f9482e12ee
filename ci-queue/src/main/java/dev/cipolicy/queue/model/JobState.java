package dev.cipolicy.queue.model;

import java.util.Locale;

/**
 * Where a job is: queued (claimable), leased to a collector, or terminal (succeeded, failed, cancelled).
 * Terminal states are absorbing.
 */
public enum JobState {
  /** Waiting for a collector of its tag. */
  QUEUED,
  /** Held by a collector under a live or expired lease. */
  LEASED,
  /** Completed by the holder of its lease. */
  SUCCEEDED,
  /** Failed permanently, or ran out of its crash-rescue or transient-failure budget. */
  FAILED,
  /** Its request was cancelled. */
  CANCELLED;

  /**
   * The name used in text and JSON output.
   *
   * @return e.g. {@code leased}
   */
  public String documentName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Whether the state never changes again.
   *
   * @return true for succeeded, failed and cancelled
   */
  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }
}

package dev.cipolicy.workflow;

import java.util.Locale;

/** A job's result in a simulated run: GitHub's four, and unknown when its {@code if} could not be decided. */
public enum JobResult {
  /** Ran and succeeded (or failed with {@code continue-on-error}). */
  SUCCESS,
  /** Ran and failed. */
  FAILURE,
  /** Ran and was cancelled. */
  CANCELLED,
  /** Did not run: its {@code if} was false. */
  SKIPPED,
  /** Its {@code if} depends on something the scenario does not give (or an ancestor's result is unknown). */
  UNKNOWN;

  /**
   * The lower-case name, as {@code needs.X.result} holds it.
   *
   * @return e.g. {@code skipped}
   */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }
}

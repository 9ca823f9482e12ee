package dev.cipolicy.workflow;

import java.util.Locale;

/** The result a scenario gives a job (or a matrix leg) that runs. */
public enum InjectedResult {
  /** The job's steps succeeded. */
  SUCCESS,
  /** A step failed. */
  FAILURE,
  /** The job was cancelled while running. */
  CANCELLED;

  /**
   * The lower-case name GitHub uses.
   *
   * @return e.g. {@code failure}
   */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }
}

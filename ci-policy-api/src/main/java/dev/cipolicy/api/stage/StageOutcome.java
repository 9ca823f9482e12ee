package dev.cipolicy.api.stage;

/** What happens to one PR stage. */
public enum StageOutcome {
  /** The stage runs. */
  RUN,
  /**
   * The stage is not needed by this change; a host posts it as a passing check under the stage's
   * name, so a required check is never silently missing.
   */
  SKIPPED_IRRELEVANT;

  /**
   * Whether a host reports the stage as a success.
   *
   * @return true for both outcomes: a skipped-irrelevant stage counts as success
   */
  public boolean countsAsSuccess() {
    return true;
  }
}

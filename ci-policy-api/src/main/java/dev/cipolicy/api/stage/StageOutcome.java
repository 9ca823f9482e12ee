package dev.cipolicy.api.stage;

/** What happens to one PR stage. */
public enum StageOutcome {
  /** The stage runs. */
  RUN,
  /**
   * The stage is not needed by this change; a host posts it as a passing check under the stage's
   * name, so a required check is never silently missing.
   */
  SKIPPED_IRRELEVANT,
  /**
   * The change touches a registered test of the stage, but the test's labels were not requested, so the run
   * policy selects none of the stage's tests and the stage is skipped like an irrelevant one (the same
   * decision, posted the same way); the reason names the changed test and the label that would run it, and a
   * host shows it as a warning, since the author probably meant the test to run.
   */
  SKIPPED_NOT_REQUESTED;

  /**
   * Whether the stage is skipped.
   *
   * @return true for both skipped outcomes
   */
  public boolean skipped() {
    return this != RUN;
  }

  /**
   * Whether a host reports the stage as a success.
   *
   * @return true for every outcome: a skipped stage counts as success
   */
  public boolean countsAsSuccess() {
    return true;
  }
}

package dev.cipolicy.gate;

/**
 * The status of one gated coordinate. The reference band model gives {@link #PASS}, {@link #FAIL},
 * {@link #INACTIVE} and {@link #ERROR}; the robust models may also say {@link #INSUFFICIENT_HISTORY} or
 * {@link #INCONCLUSIVE} rather than guess.
 */
public enum GateStatus {
  /** The value is inside the band (limits inclusive). */
  PASS(true),
  /** The value is outside the band; see the verdict's finding for the direction. */
  FAIL(false),
  /** There is no trusted history yet (cold start); nothing to compare with. */
  INACTIVE(true),
  /** The value could not be selected: a missing metric or step, a duplicate step, a non-finite value. */
  ERROR(false),
  /** Some trusted history, but less than the model's minimum. */
  INSUFFICIENT_HISTORY(true),
  /** The history cannot support a verdict: zero spread, or two separated clusters (bimodal). */
  INCONCLUSIVE(true);

  private final boolean trustworthy;

  GateStatus(boolean trustworthy) {
    this.trustworthy = trustworthy;
  }

  /**
   * Whether a value with this status may become part of the baseline. A run is trusted when every
   * coordinate's status is trustworthy (every coordinate PASS or INACTIVE; the statuses of the
   * robust models that mean "no evidence against the value" count the same).
   *
   * @return true for PASS, INACTIVE, INSUFFICIENT_HISTORY and INCONCLUSIVE
   */
  public boolean trustworthy() {
    return trustworthy;
  }
}

package dev.cipolicy.gate;

import dev.cipolicy.api.gate.FailOnLevel;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The blocking policy of a gated run: which verdicts make the host fail the run. The gate itself never fails
 * a test; a host that wants the gate to block asks {@link HookOutcome#shouldFail(FailOn)} and fails the run
 * itself. {@link #NEVER} (the default everywhere) keeps the gate report-only. A policy document names the
 * level of each cadence ({@code Policy.gateFailOn()}); {@link #of(FailOnLevel)} maps it.
 *
 * <p>A <em>regression</em> is a {@link GateStatus#FAIL} verdict whose value is out of band on the worse side
 * ({@link Finding#REGRESSION}), or out of band on a gate that declares no better direction
 * ({@link Finding#OUT_OF_BAND}: either side may be the worse one). An anomalous improvement never blocks.
 */
public enum FailOn {
  /** Nothing blocks: the gate reports (the default). */
  NEVER,
  /** A regression blocks. */
  REGRESSION,
  /** A regression or an {@link GateStatus#ERROR} verdict (a missing metric or step, a non-finite value) blocks. */
  ERROR;

  /**
   * Whether a verdict is a regression: FAIL, and out of band on the worse side or on a gate without a
   * better direction.
   *
   * @param verdict a verdict
   * @return true for a regression
   */
  public static boolean isRegression(CoordinateVerdict verdict) {
    return verdict.status() == GateStatus.FAIL
        && (verdict.finding() == Finding.REGRESSION || verdict.finding() == Finding.OUT_OF_BAND);
  }

  /**
   * Whether a verdict blocks under this policy.
   *
   * @param verdict a verdict
   * @return true when it fails the run
   */
  public boolean blocks(CoordinateVerdict verdict) {
    return switch (this) {
      case NEVER -> false;
      case REGRESSION -> isRegression(verdict);
      case ERROR -> isRegression(verdict) || verdict.status() == GateStatus.ERROR;
    };
  }

  /**
   * The policy's name as written on a command line or in a configuration.
   *
   * @return {@code never}, {@code regression} or {@code error}
   */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The policy of a policy document's blocking level ({@code gates.fail_on}): the policy of the same name.
   *
   * @param level a level from {@code Policy.gateFailOn()}
   * @return {@link #REGRESSION} or {@link #ERROR}
   */
  public static FailOn of(FailOnLevel level) {
    return switch (level) {
      case REGRESSION -> REGRESSION;
      case ERROR -> ERROR;
    };
  }

  /**
   * The policy of a name.
   *
   * @param name {@code never}, {@code regression} or {@code error} (exactly)
   * @return the policy; empty for any other name
   */
  public static Optional<FailOn> named(String name) {
    return Arrays.stream(values()).filter(f -> f.tag().equals(name)).findFirst();
  }
}

package dev.cipolicy.gate;

import java.util.List;
import java.util.Optional;

/**
 * What the hook did, as a value: the host logs it and moves on. It carries no test result, because the
 * gate never changes one by itself; a host that lets the gate block asks {@link #shouldFail(FailOn)} with its
 * blocking policy and fails the run when it says so.
 *
 * @param action what happened
 * @param mode the mode asked for
 * @param result the verdicts, when the evaluation ran
 * @param runId the written run, when one was written; for a duplicate write, the run its CI run stored first
 * @param samplesWritten how many samples were written
 * @param levelShiftsAccepted how many proposed level shifts were accepted
 * @param verdictLine the verdict line (the failure line when the hook failed)
 * @param stepSummary the Markdown step-summary block; empty when there is nothing to show
 * @param log the log lines, in order
 * @param failure what failed inside the gate, if anything
 */
public record HookOutcome(HookAction action, GateMode mode, Optional<GateResult> result, Optional<RunId> runId,
    int samplesWritten, int levelShiftsAccepted, String verdictLine, String stepSummary, List<String> log,
    Optional<String> failure) {
  /** Copies the list. */
  public HookOutcome {
    log = List.copyOf(log);
  }

  /**
   * The verdicts a host reports as findings: every regression ({@link FailOn#isRegression}) and every
   * {@link GateStatus#ERROR} verdict, in verdict order.
   *
   * @return the findings; empty when the evaluation did not run
   */
  public List<CoordinateVerdict> findings() {
    return result.map(r -> r.verdicts().stream()
        .filter(v -> FailOn.isRegression(v) || v.status() == GateStatus.ERROR).toList()).orElse(List.of());
  }

  /**
   * The verdicts that fail the run under a blocking policy, in verdict order.
   *
   * @param failOn the host's blocking policy
   * @return the blocking verdicts; empty under {@link FailOn#NEVER} and when the evaluation did not run
   */
  public List<CoordinateVerdict> blocking(FailOn failOn) {
    return findings().stream().filter(failOn::blocks).toList();
  }

  /**
   * Whether the host should fail the run under its blocking policy: some verdict blocks. A failure inside the
   * gate ({@link HookAction#FAILED}: the history store unreachable, say) has no verdicts and never blocks.
   *
   * @param failOn the host's blocking policy
   * @return true when the run should fail
   */
  public boolean shouldFail(FailOn failOn) {
    return !blocking(failOn).isEmpty();
  }
}

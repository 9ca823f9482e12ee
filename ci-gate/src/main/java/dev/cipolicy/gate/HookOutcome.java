package dev.cipolicy.gate;

import java.util.List;
import java.util.Optional;

/**
 * What the hook did, as a value: the host logs it and moves on. It carries no test result, because the
 * gate never changes one.
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
}

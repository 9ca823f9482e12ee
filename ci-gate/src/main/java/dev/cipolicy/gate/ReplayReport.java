package dev.cipolicy.gate;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a rule would have said over a stored history: every would-be alert, the level shifts it would have
 * proposed, and the count of each status.
 *
 * @param rule the rule replayed
 * @param evaluated how many values were judged
 * @param counts how many values got each status
 * @param alerts every value the rule would have failed, in time order
 * @param shifts every level shift the rule would have proposed, in time order
 */
public record ReplayReport(GateRule rule, int evaluated, Map<GateStatus, Integer> counts, List<Alert> alerts,
    List<Shift> shifts) {
  /** Copies the collections. */
  public ReplayReport {
    counts = Map.copyOf(counts);
    alerts = List.copyOf(alerts);
    shifts = List.copyOf(shifts);
  }

  /**
   * The share of judged values that would have alerted.
   *
   * @return alerts / evaluated, 0 for an empty history
   */
  public double alertRate() {
    return evaluated == 0 ? 0 : (double) alerts.size() / evaluated;
  }

  /**
   * A value the rule would have failed.
   *
   * @param index the value's position in the history (0 = oldest)
   * @param runId the run that wrote it
   * @param createdAt when
   * @param finding what the out-of-band value means
   * @param evidence the model's evidence
   */
  public record Alert(int index, RunId runId, Instant createdAt, Finding finding, Evidence evidence) {
    /**
     * The alert in words.
     *
     * @return e.g. {@code run 17 at 2026-11-20T15:00:00Z: 2.5 outside [0.2, 1.5] (regression)}
     */
    public String describe() {
      return "run " + runId + " at " + createdAt + ": " + Numbers.human(evidence.value()) + " outside ["
          + Numbers.human(evidence.lower().orElse(Double.NaN)) + ", "
          + Numbers.human(evidence.upper().orElse(Double.NaN)) + "] ("
          + finding.words() + ")";
    }
  }

  /**
   * A level shift the rule would have proposed.
   *
   * @param index the position of the value that completed the proposal
   * @param runId its run
   * @param fromLevel the baseline centre before
   * @param toLevel the proposed level
   * @param accepted whether the replay accepted it (the rule's {@code acceptLevelShifts})
   */
  public record Shift(int index, RunId runId, double fromLevel, double toLevel, boolean accepted) {
    /**
     * The proposal in words.
     *
     * @return e.g. {@code run 23: level 1 -> 2 (accepted)}
     */
    public String describe() {
      return "run " + runId + ": level " + Numbers.human(fromLevel) + " -> " + Numbers.human(toLevel)
          + (accepted ? " (accepted)" : "");
    }
  }
}

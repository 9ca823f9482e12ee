package dev.cipolicy.gate;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Backtests a rule over a coordinate's stored history before enforcing it: each value, oldest first, is
 * judged against the values before it that the rule itself would have trusted — as if the rule had run
 * from the beginning. Stored trust flags are ignored (they record what the old rule decided); revoked
 * runs are left out by the store. Cost: one judgement per value over at most the model's window.
 *
 * <pre>{@code
 * ReplayReport r = Replay.replay(GateRule.of(spec, GateModel.medianMad()), store.history(series, coordinate));
 * r.alerts().forEach(a -> System.out.println(a.runId() + " " + a.finding()));
 * }</pre>
 */
public final class Replay {
  private Replay() {}

  /**
   * Replays a rule over a history.
   *
   * @param rule the rule
   * @param history the samples of one coordinate, oldest first
   * @return the would-be alerts, proposals and counts
   */
  public static ReplayReport replay(GateRule rule, List<HistorySample> history) {
    GateModel model = rule.model();
    int window = model.window();
    int k = rule.levelShiftAfter();
    int n = history.size();
    boolean[] trusted = new boolean[n];
    int start = 0; // the first visible value: moves to the start of an accepted level shift
    Map<GateStatus, Integer> counts = new EnumMap<>(GateStatus.class);
    for (GateStatus s : GateStatus.values()) {
      counts.put(s, 0);
    }
    List<ReplayReport.Alert> alerts = new ArrayList<>();
    List<ReplayReport.Shift> shifts = new ArrayList<>();
    Map<RunId, Integer> indexOfRun = new HashMap<>();
    Coordinate coordinate = Coordinate.of(rule.spec(), 0);
    double[] values = new double[window];
    List<Integer> trustedIndices = new ArrayList<>(); // ascending, all >= start
    for (int i = 0; i < n; i++) {
      HistorySample current = history.get(i);
      indexOfRun.put(current.runId(), i);
      int m = 0;
      for (int t = trustedIndices.size() - 1; t >= 0 && m < window; t--) {
        values[m++] = history.get(trustedIndices.get(t)).value();
      }
      Evidence e = model.judge(rule.spec().constraint(), current.value(), values, m);
      GateStatus status = e.status();
      counts.merge(status, 1, Integer::sum);
      trusted[i] = status.trustworthy();
      if (trusted[i]) {
        trustedIndices.add(i);
      }
      if (status != GateStatus.FAIL) {
        continue;
      }
      alerts.add(new ReplayReport.Alert(i, current.runId(), current.createdAt(),
          Judge.finding(e, rule.spec().better()), e));
      if (k < 2) {
        continue;
      }
      List<HistorySample> recent = new ArrayList<>();
      for (int j = i - 1; j >= start && recent.size() < k - 1; j--) {
        HistorySample s = history.get(j);
        recent.add(new HistorySample(s.runId(), s.createdAt(), s.value(), trusted[j]));
      }
      Quarantine q = Judge.quarantine(coordinate, e, recent, k);
      if (q.proposal().isPresent()) {
        LevelShiftProposal p = q.proposal().get();
        shifts.add(new ReplayReport.Shift(i, current.runId(), p.fromLevel(), p.toLevel(), rule.acceptLevelShifts()));
        if (rule.acceptLevelShifts()) {
          trusted[i] = true;
          int first = i;
          for (RunId r : p.storedRuns()) {
            Integer at = indexOfRun.get(r);
            if (at == null) {
              throw new IllegalStateException(
                  "level-shift proposal names run " + r + ", which is not in the replayed history");
            }
            trusted[at] = true;
            first = Math.min(first, at);
          }
          start = first;
          trustedIndices.clear();
          for (int j = start; j <= i; j++) {
            if (trusted[j]) {
              trustedIndices.add(j);
            }
          }
        }
      }
    }
    return new ReplayReport(rule, n, counts, alerts, shifts);
  }
}

package dev.cipolicy.gate;

import dev.cipolicy.api.CanonicalJson;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The gate's verdicts on one test run: one per gated coordinate (or per whole-gate error), in
 * declaration order, then step order.
 *
 * @param series the series the run belongs to
 * @param model the name of the deciding model
 * @param verdicts the verdicts; empty exactly when the test declares no gate
 */
public record GateResult(SeriesKey series, String model, List<CoordinateVerdict> verdicts) {
  private static final List<GateStatus> OVERALL_PRECEDENCE = List.of(GateStatus.FAIL, GateStatus.ERROR,
      GateStatus.INCONCLUSIVE, GateStatus.PASS, GateStatus.INSUFFICIENT_HISTORY, GateStatus.INACTIVE);

  /** Copies the list. */
  public GateResult {
    verdicts = List.copyOf(verdicts);
  }

  /**
   * Whether the run is trusted: every coordinate is PASS or INACTIVE (or, with a robust model,
   * INSUFFICIENT_HISTORY or INCONCLUSIVE — no evidence against the value).
   *
   * @return true when every status is {@linkplain GateStatus#trustworthy() trustworthy}
   */
  public boolean trusted() {
    return verdicts.stream().allMatch(v -> v.status().trustworthy());
  }

  /**
   * Whether the test declares no gate; such a run writes nothing.
   *
   * @return true when there are no verdicts
   */
  public boolean noGateDeclared() {
    return verdicts.isEmpty();
  }

  /**
   * The number of verdicts of each status.
   *
   * @return counts in status order, zeros included
   */
  public Map<GateStatus, Integer> counts() {
    Map<GateStatus, Integer> counts = new EnumMap<>(GateStatus.class);
    for (GateStatus s : GateStatus.values()) {
      counts.put(s, 0);
    }
    verdicts.forEach(v -> counts.merge(v.status(), 1, Integer::sum));
    return counts;
  }

  /**
   * The run's status in one word: FAIL if any coordinate fails, else ERROR, INCONCLUSIVE, PASS,
   * INSUFFICIENT_HISTORY, INACTIVE — the first present.
   *
   * @return the overall status; empty when no gate is declared
   */
  public Optional<GateStatus> overall() {
    Map<GateStatus, Integer> counts = counts();
    return OVERALL_PRECEDENCE.stream().filter(s -> counts.getOrDefault(s, 0) > 0).findFirst();
  }

  /**
   * The level shifts proposed by this run.
   *
   * @return the proposals, in verdict order
   */
  public List<LevelShiftProposal> proposals() {
    List<LevelShiftProposal> out = new ArrayList<>();
    verdicts.forEach(v -> v.quarantine().flatMap(Quarantine::proposal).ifPresent(out::add));
    return out;
  }

  /**
   * The result as an ordered tree for JSON.
   *
   * @return an ordered map with the series, model, overall status, trust, counts and verdicts
   */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("test_path", series.testPath());
    m.put("backend", series.backend());
    m.put("suite", series.suite());
    m.put("model", model);
    m.put("overall", overall().map(Enum::name).orElse("NO_GATE"));
    m.put("trusted", trusted());
    Map<String, Object> counts = new LinkedHashMap<>();
    counts().forEach((k, v) -> counts.put(k.name(), v));
    m.put("counts", counts);
    List<Object> vs = new ArrayList<>();
    verdicts.forEach(v -> vs.add(v.toMap()));
    m.put("verdicts", vs);
    return m;
  }

  /**
   * The result as compact, deterministic JSON.
   *
   * @return JSON text
   */
  public String toJson() {
    return CanonicalJson.write(toMap());
  }
}

package dev.cipolicy.gate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates a test run's gates: selects the gated values from the record, reads the history
 * of their coordinates once, and judges each with the deciding model. Pure and deterministic: equal
 * inputs give equal verdicts and explanations. A malformed record never throws; it gives ERROR verdicts.
 *
 * <pre>{@code
 * GateEvaluator gate = GateEvaluator.of(GateOptions.defaults());
 * GateResult result = gate.evaluate(series, specs, record, store);
 * WritePlan plan = gate.writePlan(result, provenance, clock.instant());   // baseline-writing runs only
 * }</pre>
 */
public final class GateEvaluator {
  private final GateOptions options;

  private GateEvaluator(GateOptions options) {
    this.options = options;
  }

  /**
   * An evaluator with the given options.
   *
   * @param options the model, advisories, trust mode and quarantine
   * @return the evaluator
   */
  public static GateEvaluator of(GateOptions options) {
    return new GateEvaluator(options);
  }

  /**
   * The options.
   *
   * @return the options
   */
  public GateOptions options() {
    return options;
  }

  /**
   * Evaluates a run.
   *
   * @param series the series of the run
   * @param specs the gates, typically from {@link Gates#resolve}
   * @param given what the run recorded; a record beyond {@link RecordLimits} counts as unreadable
   * @param history where history is read from (read once, for every selected coordinate)
   * @return one verdict per selected coordinate or selection error; none when {@code specs} is empty
   */
  public GateResult evaluate(SeriesKey series, List<GateSpec> specs, MetricRecord given, HistorySource history) {
    // a record beyond the limits is not judged: it counts as unreadable, one ERROR per gate
    MetricRecord record = given.unreadable().isPresent() ? given
        : RecordLimits.violation(given).map(MetricRecord::unreadable).orElse(given);
    List<List<Selection.Item>> selected = new ArrayList<>();
    Set<Coordinate> coordinates = new LinkedHashSet<>();
    for (GateSpec spec : specs) {
      List<Selection.Item> items = Selection.select(spec, record);
      selected.add(items);
      for (Selection.Item item : items) {
        if (item instanceof Selection.Selected s) {
          coordinates.add(s.coordinate());
        }
      }
    }
    Map<Coordinate, CoordinateHistory> histories = coordinates.isEmpty() ? Map.of()
        : history.read(series, Collections.unmodifiableSet(coordinates), options.trustedLimit(),
            options.recentLimit());
    List<CoordinateVerdict> verdicts = new ArrayList<>();
    for (List<Selection.Item> items : selected) {
      for (Selection.Item item : items) {
        if (item instanceof Selection.Selected s) {
          CoordinateHistory h = histories.getOrDefault(s.coordinate(), CoordinateHistory.EMPTY);
          verdicts.add(Judge.judge(s.spec(), s.coordinate(), s.value(), limit(h), options));
        } else {
          verdicts.add(((Selection.Failed) item).verdict());
        }
      }
    }
    return new GateResult(series, options.model().name(), verdicts);
  }

  private CoordinateHistory limit(CoordinateHistory h) {
    if (h.trusted().size() <= options.trustedLimit() && h.recent().size() <= options.recentLimit()) {
      return h;
    }
    return new CoordinateHistory(
        h.trusted().subList(0, Math.min(h.trusted().size(), options.trustedLimit())),
        h.recent().subList(0, Math.min(h.recent().size(), options.recentLimit())));
  }

  /**
   * What a baseline-writing run writes: nothing when no gate is declared; otherwise one run
   * with one sample per coordinate (the first verdict of a coordinate wins; errors have no value and are
   * left out), each flagged trusted by the {@linkplain GateOptions#trust() trust mode}. A non-finite value
   * rejects the whole plan, so nothing is written.
   *
   * @param result the evaluated run
   * @param provenance the CI run and commit
   * @param createdAt when the run was evaluated
   * @return the plan
   */
  public WritePlan writePlan(GateResult result, Provenance provenance, Instant createdAt) {
    if (result.noGateDeclared()) {
      return new WritePlan.Skip("no gate declared");
    }
    boolean runTrusted = result.trusted();
    Map<Coordinate, Sample> samples = new LinkedHashMap<>();
    for (CoordinateVerdict v : result.verdicts()) {
      if (v.value().isEmpty() || v.coordinate().isEmpty()) {
        continue;
      }
      Coordinate c = v.coordinate().get();
      double value = v.value().getAsDouble();
      if (!Double.isFinite(value)) {
        return new WritePlan.Reject("the value of " + c + " is not finite: " + value + "; nothing written");
      }
      boolean trusted = options.trust() == TrustMode.PER_RUN ? runTrusted : v.status().trustworthy();
      samples.putIfAbsent(c, new Sample(c, value, trusted));
    }
    return new WritePlan.Write(new RunRecord(result.series(), provenance, createdAt, runTrusted,
        List.copyOf(samples.values())));
  }
}

package dev.cipolicy.benchmarks;

import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.CoordinateHistory;
import dev.cipolicy.gate.GateEvaluator;
import dev.cipolicy.gate.GateHistory;
import dev.cipolicy.gate.GateModel;
import dev.cipolicy.gate.GateOptions;
import dev.cipolicy.gate.GateResult;
import dev.cipolicy.gate.GateRule;
import dev.cipolicy.gate.GateSpec;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.MetricRecord;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.Replay;
import dev.cipolicy.gate.ReplayReport;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of the metric gate: evaluating a run of 500 coordinates (5 metrics × 100 steps, gate
 * {@code all}) against 20 trusted samples each, from plain history values and through the in-memory store;
 * and replaying a rule over a 10,000-sample history. Divide by 500 (or 10,000) for the per-coordinate
 * (per-sample) cost. All inputs come from fixed seeds.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GateBenchmark {
  private static final SeriesKey SERIES = new SeriesKey("tests/e2e/test_bench.py", "cuda", "stage-c-8-gpu-h200");
  private static final Instant T0 = Instant.parse("2026-11-01T15:00:00Z");
  private static final int METRICS = 5;
  private static final int STEPS = 100;
  private static final int HISTORY = 20;
  private static final int REPLAY = 10_000;

  /** The deciding model. */
  @Param({"band", "median-mad", "iqr-fence", "adjacent-delta"})
  public String model;

  private List<GateSpec> specs = List.of();
  private MetricRecord record = MetricRecord.unreadable("not set up");
  private GateHistory history = GateHistory.empty(SERIES);
  private InMemoryMetricHistoryStore store = new InMemoryMetricHistoryStore();
  private GateEvaluator evaluator = GateEvaluator.of(GateOptions.defaults());
  private GateRule rule = null;
  private List<HistorySample> longHistory = List.of();

  /** Builds the specs, the record, the 20-sample histories (as values and in a store) and the long history. */
  @Setup
  public void setUp() {
    Random random = new Random(20261129L);
    GateModel m = GateModel.named(model).orElseThrow();
    evaluator = GateEvaluator.of(GateOptions.builder().model(m).build());
    specs = new ArrayList<>();
    MetricRecord.Builder rb = MetricRecord.builder();
    for (int k = 0; k < METRICS; k++) {
      String metric = "train/metric_" + k;
      specs.add(GateSpec.builder().metricKey(metric).steps(GateSteps.all()).constraint(GateConstraint.of(.5, .1, .8, .1))
          .better(Better.LOWER).build());
      for (int s = 0; s < STEPS; s++) {
        rb.point(metric, s, 1 + 0.05 * random.nextGaussian() + (random.nextInt(50) == 0 ? 5 : 0));
      }
    }
    record = rb.build();
    Map<Coordinate, CoordinateHistory> values = new HashMap<>();
    store = new InMemoryMetricHistoryStore();
    List<List<Sample>> runs = new ArrayList<>();
    for (int i = 0; i < HISTORY; i++) {
      runs.add(new ArrayList<>());
    }
    for (GateSpec spec : specs) {
      for (int s = 0; s < STEPS; s++) {
        Coordinate c = Coordinate.of(spec, s);
        List<HistorySample> trusted = new ArrayList<>();
        for (int i = 0; i < HISTORY; i++) {
          double v = 1 + 0.05 * random.nextGaussian();
          trusted.add(0, new HistorySample(new RunId(i + 1), T0.plusSeconds(60L * i), v, true));
          runs.get(i).add(new Sample(c, v, true));
        }
        values.put(c, new CoordinateHistory(trusted, trusted.subList(0, 2)));
      }
    }
    history = GateHistory.of(SERIES, values);
    for (int i = 0; i < HISTORY; i++) {
      store.write(new RunRecord(SERIES, Provenance.none(), T0.plusSeconds(60L * i), true, runs.get(i)));
    }
    rule = new GateRule(specs.get(0), m, 3, false);
    List<HistorySample> samples = new ArrayList<>();
    double level = 1;
    for (int i = 0; i < REPLAY; i++) {
      if (i % 2_500 == 2_499) {
        level *= 1.5; // a few level shifts
      }
      samples.add(new HistorySample(new RunId(i + 1), T0.plusSeconds(60L * i), level + 0.05 * random.nextGaussian(),
          true));
    }
    longHistory = samples;
  }

  /**
   * Evaluates 500 coordinates against 20 trusted values each, history given as values.
   *
   * @return the result
   */
  @Benchmark
  public GateResult evaluate500Coordinates() {
    return evaluator.evaluate(SERIES, specs, record, history);
  }

  /**
   * The same through the in-memory store: one read of 500 coordinates, then evaluation.
   *
   * @return the result
   */
  @Benchmark
  public GateResult evaluate500CoordinatesFromStore() {
    return evaluator.evaluate(SERIES, specs, record, store);
  }

  /**
   * Replays the rule over 10,000 samples of one coordinate, with quarantine after 3.
   *
   * @return the report
   */
  @Benchmark
  public ReplayReport replay10000Samples() {
    return Replay.replay(rule, longHistory);
  }
}

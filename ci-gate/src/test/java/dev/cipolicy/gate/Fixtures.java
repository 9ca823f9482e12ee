package dev.cipolicy.gate;

import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Shared values for the gate tests. */
final class Fixtures {
  static final SeriesKey SERIES = new SeriesKey("tests/e2e/test_fsdp_short.py", "cuda", "stage-c-4-gpu-h200");
  static final SeriesKey OTHER_SERIES = new SeriesKey("tests/e2e/test_lora.py", "cuda", "stage-c-4-gpu-h200");
  static final Instant T0 = Instant.parse("2026-11-01T15:00:00Z");
  static final GateConstraint GRAD = GateConstraint.of(.5, .1, .8, .1);
  static final GateSpec GRAD_ALL = spec("train/grad_norm", GateSteps.all(), GRAD, Better.LOWER);
  static final GateSpec REWARD_LAST = spec("rollout/raw_reward", GateSteps.last(), GateConstraint.of(.5, .05, .2, .05),
      Better.HIGHER);

  private Fixtures() {}

  static GateSpec spec(String metric, GateSteps steps, GateConstraint c, Better better) {
    return GateSpec.builder().metricKey(metric).steps(steps).constraint(c).better(better).build();
  }

  static GateSpec spec(String metric, GateSteps steps, GateConstraint c) {
    return GateSpec.builder().metricKey(metric).steps(steps).constraint(c).build();
  }

  static GateEvaluator reference() {
    return GateEvaluator.of(GateOptions.reference());
  }

  /** A record with one metric whose values are at steps 0, 1, 2, ... */
  static MetricRecord record(String metric, double... values) {
    return MetricRecord.builder().series(metric, values).build();
  }

  /** Writes trusted runs, one per value, each with the value at every given coordinate. */
  static InMemoryMetricHistoryStore storeWith(SeriesKey series, List<Coordinate> coordinates, double... values) {
    InMemoryMetricHistoryStore store = new InMemoryMetricHistoryStore();
    write(store, series, coordinates, 0, values);
    return store;
  }

  static List<RunId> write(MetricHistoryStore store, SeriesKey series, List<Coordinate> coordinates, int minuteOffset,
      double... values) {
    List<RunId> ids = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      List<Sample> samples = new ArrayList<>();
      for (Coordinate c : coordinates) {
        samples.add(new Sample(c, values[i], true));
      }
      ids.add(store.write(new RunRecord(series, Provenance.of("ci-" + (minuteOffset + i), "c" + (minuteOffset + i),
          "nightly"), T0.plusSeconds(60L * (minuteOffset + i)), true, samples)).runId());
    }
    return ids;
  }

  static HistorySample sample(long run, double value, boolean trusted) {
    return new HistorySample(new RunId(run), T0.plusSeconds(run * 60), value, trusted);
  }
}

package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.OTHER_SERIES;
import static dev.cipolicy.gate.Fixtures.SERIES;
import static dev.cipolicy.gate.Fixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Invariants of evaluation over generated records, specs and histories. */
class GateEvaluatorProperties {
  private static final List<String> METRICS = List.of("train/grad_norm", "rollout/raw_reward", "train/ppo_kl");
  private static final List<Double> ODD = List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
      -0.0, 0.0, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, 1e300, -1e-300);

  static Gen<GateSpec> specs() {
    Gen<GateSteps> steps = Generate.pick(List.of(GateSteps.last(), GateSteps.all(),
        GateSteps.indices(List.of(0, 2)), GateSteps.indices(List.of(3)), GateSteps.indices(List.of(1, 0, 4))));
    Gen<GateConstraint> constraint = Generate.pick(List.of(GateConstraint.of(.5, .1, .8, .1),
        GateConstraint.of(.5, .02, .8, .02), GateConstraint.builder().relUp(1).absFloorUp(.1).relDown(1).build()));
    Gen<Better> better = Generate.pick(List.of(Better.LOWER, Better.HIGHER));
    return Generate.pick(METRICS).zip(steps, constraint, better, Fixtures::spec);
  }

  static Gen<Double> values() {
    return doubles().between(-5, 5).mix(Generate.pick(ODD), 15);
  }

  /** Records of every shape: gaps, duplicates, non-finite values, malformed series, unreadable. */
  static Gen<MetricRecord> records() {
    Gen<MetricRecord> wellFormed = lists().of(Generate.pick(METRICS).zip(integers().between(0, 6), values(),
            (m, s, v) -> new Object[] {m, s, v}))
        .ofSizeBetween(0, 25)
        .zip(booleans().all(), (points, malformed) -> {
          MetricRecord.Builder b = MetricRecord.builder();
          for (Object[] p : points) {
            b.point((String) p[0], (Integer) p[1], (Double) p[2]);
          }
          if (malformed) {
            b.malformed("train/ppo_kl", "point 0 is not a [step, value] pair");
          }
          return b.build();
        });
    return wellFormed.mix(Generate.constant(MetricRecord.unreadable("not JSON")), 5);
  }

  static Gen<List<Double>> historyValues() {
    return lists().of(doubles().between(-3, 3)).ofSizeBetween(0, 25);
  }

  /** A store with the given values written at every coordinate of the specs, steps 0 to 4 and last. */
  static InMemoryMetricHistoryStore store(List<GateSpec> specs, List<Double> values, List<Boolean> trust) {
    InMemoryMetricHistoryStore store = new InMemoryMetricHistoryStore();
    for (int i = 0; i < values.size(); i++) {
      List<Sample> samples = new ArrayList<>();
      java.util.Set<Coordinate> seen = new java.util.HashSet<>();
      for (GateSpec s : specs) {
        for (int step = -1; step <= 4; step++) {
          Coordinate c = Coordinate.of(s, step);
          if (seen.add(c)) {
            samples.add(new Sample(c, values.get(i) + 0.01 * step, trust.get(i % trust.size())));
          }
        }
      }
      store.write(new RunRecord(SERIES, Provenance.none(), T0.plusSeconds(60L * (100 + i)), true, samples));
    }
    return store;
  }

  @Test
  void malformedRecordsNeverThrowFromEvaluation() {
    qt().forAll(lists().of(specs()).ofSizeBetween(0, 4), records(), historyValues())
        .checkAssert((specs, record, history) -> {
          for (GateOptions options : List.of(GateOptions.reference(), GateOptions.defaults(),
              GateOptions.builder().model(GateModel.medianMad()).addAdvisories(GateModel.iqrFence(),
                  GateModel.adjacentDelta()).build())) {
            GateEvaluator gate = GateEvaluator.of(options);
            GateResult r = gate.evaluate(SERIES, specs, record, store(specs, history, List.of(true)));
            assertThat(r.verdicts().size()).isGreaterThanOrEqualTo(specs.size());
            for (CoordinateVerdict v : r.verdicts()) {
              assertThat(v.error().isPresent()).isEqualTo(v.status() == GateStatus.ERROR);
              v.value().ifPresent(x -> assertThat(Double.isFinite(x)).isTrue());
              assertThat(v.explanation().sentence()).isNotEmpty();
            }
            assertThat(r.toJson()).isNotEmpty();
            GateReport.stepSummary(GateMode.SHADOW, r);
            assertThat(gate.writePlan(r, Provenance.none(), T0)).isNotInstanceOf(WritePlan.Reject.class);
          }
        });
  }

  @Test
  void addingHistoryForOtherSeriesMetricsOrStepsNeverChangesAVerdict() {
    qt().forAll(lists().of(specs()).ofSizeBetween(1, 3), records(), historyValues(), historyValues())
        .checkAssert((specs, record, history, noise) -> {
          GateEvaluator gate = GateEvaluator.of(GateOptions.defaults());
          InMemoryMetricHistoryStore store = store(specs, history, List.of(true, true, false));
          GateResult before = gate.evaluate(SERIES, specs, record, store);
          Set<Coordinate> judged = new java.util.HashSet<>();
          before.verdicts().forEach(v -> v.coordinate().ifPresent(judged::add));
          for (int i = 0; i < noise.size(); i++) {
            double v = noise.get(i) * 100;
            List<Sample> other = new ArrayList<>();
            List<Sample> same = new ArrayList<>();
            for (GateSpec s : specs) {
              for (int step = -1; step <= 9; step++) {
                Coordinate c = Coordinate.of(s, step);
                if (other.stream().noneMatch(x -> x.coordinate().equals(c))) {
                  other.add(new Sample(c, v, true));
                }
                Coordinate otherStep = new Coordinate(s.metricKey(), s.stepsKey(), s.constraintKey(), step + 10);
                Coordinate otherMetric = new Coordinate(s.metricKey() + "/other", s.stepsKey(), s.constraintKey(), step);
                Coordinate otherConstraint = new Coordinate(s.metricKey(), s.stepsKey(), "{}", step);
                for (Coordinate c2 : List.of(otherStep, otherMetric, otherConstraint)) {
                  if (!judged.contains(c2) && same.stream().noneMatch(x -> x.coordinate().equals(c2))) {
                    same.add(new Sample(c2, v, true));
                  }
                }
              }
            }
            store.write(new RunRecord(OTHER_SERIES, Provenance.none(), T0.plusSeconds(99_999L + i), true, other));
            store.write(new RunRecord(SERIES, Provenance.none(), T0.plusSeconds(99_999L + i), true, same));
          }
          assertThat(gate.evaluate(SERIES, specs, record, store)).isEqualTo(before);
        });
  }

  @Test
  void onlyTheNewestTrustedSamplesMatter() {
    qt().forAll(lists().of(specs()).ofSizeBetween(1, 3), records(), historyValues(), historyValues())
        .checkAssert((specs, record, newest, older) -> {
          GateEvaluator gate = GateEvaluator.of(GateOptions.defaults());
          List<Double> twenty = new ArrayList<>();
          for (int i = 0; i < 20; i++) {
            twenty.add(newest.isEmpty() ? 1.0 : newest.get(i % newest.size()));
          }
          List<Double> all = new ArrayList<>(older);
          all.addAll(twenty); // older values are written first, with earlier times
          GateResult expected = gate.evaluate(SERIES, specs, record, store(specs, twenty, List.of(true)));
          GateResult actual = gate.evaluate(SERIES, specs, record, store(specs, all, List.of(true)));
          assertThat(strip(actual)).isEqualTo(strip(expected));
        });
  }

  /** The verdicts without run ids, which differ between two stores. */
  private static List<Object> strip(GateResult r) {
    List<Object> out = new ArrayList<>();
    for (CoordinateVerdict v : r.verdicts()) {
      out.add(List.of(v.status(), v.finding(), v.value(), v.evidence(), v.error(), v.advisories()));
    }
    return out;
  }

  @Test
  void equalInputsGiveEqualVerdictsAndExplanations() {
    qt().forAll(lists().of(specs()).ofSizeBetween(0, 3), records(), historyValues()).checkAssert((specs, record, h) -> {
      GateEvaluator gate = GateEvaluator.of(GateOptions.builder().addAdvisories(GateModel.medianMad()).build());
      GateResult a = gate.evaluate(SERIES, specs, record, store(specs, h, List.of(true, false)));
      GateResult b = GateEvaluator.of(GateOptions.builder().addAdvisories(GateModel.medianMad()).build())
          .evaluate(SERIES, List.copyOf(specs), new MetricRecord(record.metrics(), record.unreadable()),
              store(specs, h, List.of(true, false)));
      assertThat(b).isEqualTo(a);
      assertThat(b.toJson()).isEqualTo(a.toJson());
      assertThat(b.verdicts().stream().map(v -> v.explanation().toJson()).toList())
          .isEqualTo(a.verdicts().stream().map(v -> v.explanation().toJson()).toList());
      assertThat(GateReport.stepSummary(GateMode.SHADOW, b)).isEqualTo(GateReport.stepSummary(GateMode.SHADOW, a));
    });
  }

  @Test
  void shadowModeNeverWritesAndTheHookNeverThrows() {
    qt().forAll(lists().of(specs()).ofSizeBetween(0, 3), records(), historyValues(), booleans().all())
        .checkAssert((specs, record, h, throwing) -> {
          RecordingStore store = new RecordingStore(store(specs, h, List.of(true)));
          List<GateDeclaration> declared = specs.stream().map(GateSpec::declaration).toList();
          RecordSource source = throwing ? () -> {
            throw new IllegalStateException("record gone");
          } : () -> record;
          HookOutcome o = GateHook.of(store, GateEvaluator.of(GateOptions.defaults()),
                  Clock.fixed(T0, ZoneOffset.UTC))
              .run(HookRequest.builder().series(SERIES).addAllDeclarations(declared).record(source)
                  .mode(GateMode.SHADOW).acceptLevelShifts(true).build());
          assertThat(store.writes).isZero();
          assertThat(o.action()).isIn(HookAction.SHADOW_REPORTED, HookAction.NO_GATE_DECLARED);
          assertThat(o.runId()).isEmpty();
        });
  }

  /** Counts every call that changes a store. */
  static final class RecordingStore implements MetricHistoryStore {
    private final MetricHistoryStore delegate;
    int writes;

    RecordingStore(MetricHistoryStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> coordinates, int trustedLimit,
        int recentLimit) {
      return delegate.read(series, coordinates, trustedLimit, recentLimit);
    }

    @Override
    public WriteResult write(RunRecord run) {
      writes++;
      return delegate.write(run);
    }

    @Override
    public RevocationResult revoke(Revocation revocation) {
      writes++;
      return delegate.revoke(revocation);
    }

    @Override
    public int acceptLevelShift(SeriesKey series, Coordinate coordinate, List<RunId> runs) {
      writes++;
      return delegate.acceptLevelShift(series, coordinate, runs);
    }

    @Override
    public List<HistorySample> history(SeriesKey series, Coordinate coordinate) {
      return delegate.history(series, coordinate);
    }

    @Override
    public List<Coordinate> coordinates(SeriesKey series) {
      return delegate.coordinates(series);
    }
  }
}

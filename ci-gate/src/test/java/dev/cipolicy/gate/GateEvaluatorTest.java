package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.GRAD_ALL;
import static dev.cipolicy.gate.Fixtures.REWARD_LAST;
import static dev.cipolicy.gate.Fixtures.SERIES;
import static dev.cipolicy.gate.Fixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Evaluation over a store, run trust, the write plan and the two trust modes. */
class GateEvaluatorTest {
  private static final Coordinate G0 = Coordinate.of(GRAD_ALL, 0);
  private static final Coordinate G1 = Coordinate.of(GRAD_ALL, 1);
  private static final Coordinate G2 = Coordinate.of(GRAD_ALL, 2);

  private static InMemoryMetricHistoryStore history() {
    return Fixtures.storeWith(SERIES, List.of(G0, G1, G2), 1.0, 1.0, 1.0);
  }

  @Test
  void aRunIsTrustedWhenEveryCoordinatePassesOrIsInactive() {
    GateResult ok = Fixtures.reference().evaluate(SERIES, List.of(GRAD_ALL, REWARD_LAST),
        MetricRecord.builder().series("train/grad_norm", 1.1, 0.9, 1.0).series("rollout/raw_reward", 0.5).build(),
        history());
    assertThat(ok.counts()).containsEntry(GateStatus.PASS, 3).containsEntry(GateStatus.INACTIVE, 1);
    assertThat(ok.trusted()).isTrue();
    assertThat(ok.overall()).contains(GateStatus.PASS);

    GateResult bad = Fixtures.reference().evaluate(SERIES, List.of(GRAD_ALL),
        Fixtures.record("train/grad_norm", 1.1, 9, 1.0), history());
    assertThat(bad.trusted()).isFalse();
    assertThat(bad.overall()).contains(GateStatus.FAIL);
  }

  @Test
  void anErrorMakesTheRunUntrusted() {
    GateResult r = Fixtures.reference().evaluate(SERIES, List.of(GRAD_ALL, REWARD_LAST),
        Fixtures.record("train/grad_norm", 1, 1, 1), history());
    assertThat(r.overall()).contains(GateStatus.ERROR);
    assertThat(r.trusted()).isFalse();
  }

  @Test
  void noGateDeclaredWritesNothing() {
    GateResult r = Fixtures.reference().evaluate(SERIES, List.of(), Fixtures.record("train/grad_norm", 1), history());
    assertThat(r.noGateDeclared()).isTrue();
    assertThat(r.overall()).isEmpty();
    assertThat(Fixtures.reference().writePlan(r, Provenance.none(), T0))
        .isEqualTo(new WritePlan.Skip("no gate declared"));
  }

  @Test
  void theReferenceTrustsPerRun() {
    GateResult r = Fixtures.reference().evaluate(SERIES, List.of(GRAD_ALL),
        Fixtures.record("train/grad_norm", 1.1, 9, 1.0), history());
    RunRecord run = ((WritePlan.Write) Fixtures.reference().writePlan(r, Provenance.of("42", "abc", "nightly"), T0))
        .run();
    assertThat(run.trusted()).isFalse();
    assertThat(run.samples()).containsExactly(new Sample(G0, 1.1, false), new Sample(G1, 9, false),
        new Sample(G2, 1.0, false));
  }

  @Test
  void perCoordinateTrustKeepsTheGoodSamplesOfARun() {
    GateEvaluator gate = GateEvaluator.of(GateOptions.builder().trust(TrustMode.PER_COORDINATE).build());
    GateResult r = gate.evaluate(SERIES, List.of(GRAD_ALL), Fixtures.record("train/grad_norm", 1.1, 9, 1.0), history());
    RunRecord run = ((WritePlan.Write) gate.writePlan(r, Provenance.none(), T0)).run();
    assertThat(run.trusted()).isFalse();
    assertThat(run.samples()).containsExactly(new Sample(G0, 1.1, true), new Sample(G1, 9, false),
        new Sample(G2, 1.0, true));
  }

  @Test
  void onlyOneSamplePerCoordinateIsWritten() {
    GateResult r = Fixtures.reference().evaluate(SERIES, List.of(GRAD_ALL, GRAD_ALL),
        Fixtures.record("train/grad_norm", 1, 1), history());
    assertThat(r.verdicts()).hasSize(4);
    RunRecord run = ((WritePlan.Write) Fixtures.reference().writePlan(r, Provenance.none(), T0)).run();
    assertThat(run.samples()).extracting(Sample::coordinate).containsExactly(G0, G1);
  }

  @Test
  void errorsHaveNoSampleButTheRunIsStillWrittenUntrusted() {
    GateResult r = Fixtures.reference().evaluate(SERIES, List.of(REWARD_LAST), MetricRecord.unreadable("gone"),
        history());
    RunRecord run = ((WritePlan.Write) Fixtures.reference().writePlan(r, Provenance.none(), T0)).run();
    assertThat(run.samples()).isEmpty();
    assertThat(run.trusted()).isFalse();
  }

  @Test
  void aNonFiniteValueRejectsTheWholePlan() {
    Coordinate c = Coordinate.of(REWARD_LAST, -1);
    CoordinateVerdict ok = Fixtures.reference().evaluate(SERIES, List.of(GRAD_ALL), Fixtures.record("train/grad_norm",
        1), history()).verdicts().get(0);
    CoordinateVerdict nan = new CoordinateVerdict(c.metricKey(), c.stepsKey(), c.constraintKey(), OptionalInt.of(-1),
        GateStatus.INACTIVE, Finding.NONE, OptionalDouble.of(Double.NaN),
        Optional.of(GateModel.band().judge(REWARD_LAST.constraint(), Double.NaN, new double[0], 0)), Optional.empty(),
        List.of(), Optional.empty());
    GateResult r = new GateResult(SERIES, "band", List.of(ok, nan));
    assertThat(Fixtures.reference().writePlan(r, Provenance.none(), T0)).isInstanceOfSatisfying(WritePlan.Reject.class,
        p -> assertThat(p.reason()).startsWith("the value of rollout/raw_reward[last]").endsWith("is not finite: NaN;"
            + " nothing written"));
  }

  @Test
  void aStoreNeverAcceptsANonFiniteSampleOrARepeatedCoordinate() {
    assertThatThrownBy(() -> new Sample(G0, Double.POSITIVE_INFINITY, true)).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> new RunRecord(SERIES, Provenance.none(), T0, true,
        List.of(new Sample(G0, 1, true), new Sample(G0, 2, true))))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("appears twice in one run");
  }

  @Test
  void advisoryModelsAreReportedAndNeverDecide() {
    InMemoryMetricHistoryStore store = Fixtures.storeWith(SERIES, List.of(G0), 1, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98,
        1.03, 0.97, 1.01, 0.99, 1.04);
    GateEvaluator gate = GateEvaluator.of(GateOptions.builder().addAdvisories(GateModel.medianMad()).build());
    CoordinateVerdict v = gate.evaluate(SERIES, List.of(GRAD_ALL), Fixtures.record("train/grad_norm", 1.4), store)
        .verdicts().get(0);
    assertThat(v.status()).isEqualTo(GateStatus.PASS); // the band: [0.2, 1.5]
    assertThat(v.advisories()).singleElement().satisfies(a -> {
      assertThat(a.model()).isEqualTo("median-mad");
      assertThat(a.status()).isEqualTo(GateStatus.FAIL);
    });
    assertThat(v.explanation().hints()).contains("advisory median-mad: FAIL");
  }

  @Test
  void historyIsReadOnceForAllCoordinates() {
    int[] reads = {0};
    HistorySource counting = (series, coordinates, trusted, recent) -> {
      reads[0]++;
      assertThat(coordinates).containsExactly(G0, G1, G2, Coordinate.of(REWARD_LAST, -1));
      assertThat(trusted).isEqualTo(20);
      assertThat(recent).isEqualTo(2);
      return Map.of();
    };
    GateEvaluator.of(GateOptions.defaults()).evaluate(SERIES, List.of(GRAD_ALL, REWARD_LAST),
        MetricRecord.builder().series("train/grad_norm", 1, 1, 1).series("rollout/raw_reward", 1).build(), counting);
    assertThat(reads[0]).isEqualTo(1);
  }

  @Test
  void theResultRendersAsDeterministicJson() {
    GateResult r = Fixtures.reference().evaluate(SERIES, List.of(REWARD_LAST), Fixtures.record("rollout/raw_reward",
        0.5), GateHistory.empty(SERIES));
    assertThat(r.toJson()).isEqualTo("{\"test_path\":\"tests/e2e/test_fsdp_short.py\",\"backend\":\"cuda\","
        + "\"suite\":\"stage-c-4-gpu-h200\",\"model\":\"band\",\"overall\":\"INACTIVE\",\"trusted\":true,"
        + "\"counts\":{\"PASS\":0,\"FAIL\":0,\"INACTIVE\":1,\"ERROR\":0,\"INSUFFICIENT_HISTORY\":0,\"INCONCLUSIVE\":0},"
        + "\"verdicts\":[{\"metric\":\"rollout/raw_reward\",\"steps\":\"last\",\"constraint\":"
        + "\"{\\\"abs_floor_down\\\":0.05,\\\"abs_floor_up\\\":0.05,\\\"rel_down\\\":0.2,\\\"rel_up\\\":0.5}\","
        + "\"step\":-1,\"status\":\"INACTIVE\",\"finding\":\"NONE\",\"value\":0.5,\"evidence\":{\"model\":\"band\","
        + "\"status\":\"INACTIVE\",\"n\":0,\"min_history\":1,\"value\":0.5,\"basis\":\"no trusted history (cold start)\"},"
        + "\"reason\":\"no trusted history (cold start)\"}]}");
  }
}

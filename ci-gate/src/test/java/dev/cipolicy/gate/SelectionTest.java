package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.GRAD;
import static dev.cipolicy.gate.Fixtures.SERIES;
import static dev.cipolicy.gate.Fixtures.reference;
import static dev.cipolicy.gate.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.gate.GateSteps;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The selection rules and error texts, one test per rule and message. */
class SelectionTest {
  private static final GateSpec LAST = spec("m", GateSteps.last(), GRAD);
  private static final GateSpec ALL = spec("m", GateSteps.all(), GRAD);
  private static final GateSpec LIST = spec("m", GateSteps.indices(List.of(4, 0, 2)), GRAD);

  private static GateResult evaluate(GateSpec spec, MetricRecord record) {
    return reference().evaluate(SERIES, List.of(spec), record, GateHistory.empty(SERIES));
  }

  private static CoordinateVerdict only(GateSpec spec, MetricRecord record) {
    GateResult r = evaluate(spec, record);
    assertThat(r.verdicts()).hasSize(1);
    return r.verdicts().get(0);
  }

  @Nested
  @DisplayName("every kind of steps")
  class Common {
    @Test
    void aMissingMetricIsOneErrorForTheWholeGate() {
      CoordinateVerdict v = only(ALL, Fixtures.record("other", 1, 2));
      assertThat(v.status()).isEqualTo(GateStatus.ERROR);
      assertThat(v.step()).isEmpty();
      assertThat(v.error()).hasValue("metric 'm' is not in the record");
    }

    @Test
    void anUnreadableRecordIsAnErrorForEveryGate() {
      GateResult r = reference().evaluate(SERIES, List.of(LAST, ALL), MetricRecord.unreadable("no such file"),
          GateHistory.empty(SERIES));
      assertThat(r.verdicts()).extracting(v -> v.error().orElseThrow())
          .containsExactly("the record is unreadable: no such file", "the record is unreadable: no such file");
      assertThat(r.trusted()).isFalse();
    }

    @Test
    void aMalformedSeriesIsAnErrorNamingWhy() {
      CoordinateVerdict v = only(LAST, MetricRecord.builder().malformed("m", "point 2 is not a [step, value] pair")
          .build());
      assertThat(v.error()).hasValue("metric 'm' is malformed: point 2 is not a [step, value] pair");
    }
  }

  @Nested
  @DisplayName("steps: last")
  class Last {
    @Test
    void selectsTheLastPointAtStepMinusOne() {
      CoordinateVerdict v = only(LAST, Fixtures.record("m", 1, 2, 3));
      assertThat(v.status()).isEqualTo(GateStatus.INACTIVE);
      assertThat(v.step()).isEqualTo(OptionalInt.of(-1));
      assertThat(v.value().getAsDouble()).isEqualTo(3);
      assertThat(v.coordinate().orElseThrow()).isEqualTo(new Coordinate("m", "last", GRAD.key(), -1));
    }

    @Test
    void noPointIsAnError() {
      CoordinateVerdict v = only(LAST, MetricRecord.of(java.util.Map.of("m", MetricSeries.of(List.of()))));
      assertThat(v.step()).isEqualTo(OptionalInt.of(-1));
      assertThat(v.error()).hasValue("metric 'm' has no points");
    }

    @Test
    void aNonFiniteLastPointIsAnError() {
      CoordinateVerdict v = only(LAST, Fixtures.record("m", 1, Double.NaN));
      assertThat(v.error()).hasValue("the last point of 'm' (step 1) is not finite: NaN");
      assertThat(only(LAST, Fixtures.record("m", Double.NEGATIVE_INFINITY)).error())
          .hasValue("the last point of 'm' (step 0) is not finite: -Infinity");
    }

    @Test
    void aNonFiniteEarlierPointDoesNotMatter() {
      assertThat(only(LAST, Fixtures.record("m", Double.NaN, 1)).status()).isEqualTo(GateStatus.INACTIVE);
    }
  }

  @Nested
  @DisplayName("steps: all")
  class All {
    @Test
    void selectsEveryPointAtItsStepInStepOrder() {
      MetricRecord r = MetricRecord.builder().point("m", 1, 10).point("m", 0, 5).point("m", 2, 7).build();
      GateResult result = evaluate(ALL, r);
      assertThat(result.verdicts()).extracting(v -> v.step().getAsInt()).containsExactly(0, 1, 2);
      assertThat(result.verdicts()).extracting(v -> v.value().getAsDouble()).containsExactly(5.0, 10.0, 7.0);
      assertThat(result.verdicts()).allMatch(v -> v.status() == GateStatus.INACTIVE);
    }

    @Test
    void aMissingStepIndexIsAnErrorAtThatStep() {
      MetricRecord r = MetricRecord.builder().point("m", 0, 1).point("m", 2, 1).build();
      GateResult result = evaluate(ALL, r);
      assertThat(result.verdicts()).extracting(CoordinateVerdict::status)
          .containsExactly(GateStatus.INACTIVE, GateStatus.ERROR, GateStatus.INACTIVE);
      assertThat(result.verdicts().get(1).error()).hasValue("step 1 of 'm' is missing (the series has steps up to 2)");
      assertThat(result.verdicts().get(1).step()).isEqualTo(OptionalInt.of(1));
    }

    @Test
    void aDuplicateStepIsAnErrorAtThatStep() {
      MetricRecord r = MetricRecord.builder().point("m", 0, 1).point("m", 1, 1).point("m", 1, 2).build();
      GateResult result = evaluate(ALL, r);
      assertThat(result.verdicts().get(1).error()).hasValue("step 1 of 'm' appears 2 times");
    }

    @Test
    void aNonFiniteValueIsAnErrorAtThatStep() {
      GateResult result = evaluate(ALL, Fixtures.record("m", 1, Double.POSITIVE_INFINITY, 3));
      assertThat(result.verdicts().get(1).error()).hasValue("step 1 of 'm' is not finite: Infinity");
      assertThat(result.verdicts()).extracting(CoordinateVerdict::status)
          .containsExactly(GateStatus.INACTIVE, GateStatus.ERROR, GateStatus.INACTIVE);
    }

    @Test
    void noPointIsOneErrorForTheWholeGate() {
      CoordinateVerdict v = only(ALL, MetricRecord.of(java.util.Map.of("m", MetricSeries.of(List.of()))));
      assertThat(v.step()).isEmpty();
      assertThat(v.error()).hasValue("metric 'm' has no points");
    }

    @Test
    void aHugeGapIsOneErrorInsteadOfAMillionVerdicts() {
      MetricRecord r = MetricRecord.builder().point("m", 0, 1).point("m", 2_000_000, 1).build();
      CoordinateVerdict v = only(ALL, r);
      assertThat(v.error()).hasValue("metric 'm' is missing 1999999 of the step indices 0..2000000");
    }
  }

  @Nested
  @DisplayName("steps: a list of indices")
  class Indices {
    @Test
    void selectsEachRequestedStepInDeclarationOrder() {
      GateResult result = evaluate(LIST, Fixtures.record("m", 0, 1, 2, 3, 4, 5));
      assertThat(result.verdicts()).extracting(v -> v.step().getAsInt()).containsExactly(4, 0, 2);
      assertThat(result.verdicts().get(0).stepsKey()).isEqualTo("[0,2,4]");
    }

    @Test
    void aMissingStepMakesTheWholeGateOneError() {
      CoordinateVerdict v = only(LIST, Fixtures.record("m", 0, 1, 2));
      assertThat(v.step()).isEmpty();
      assertThat(v.error()).hasValue("steps [0,2,4] of 'm': step 4 is missing");
    }

    @Test
    void everyProblemIsNamedInTheOneError() {
      MetricRecord r = MetricRecord.builder().point("m", 0, Double.NaN).point("m", 2, 1).point("m", 2, 1).build();
      CoordinateVerdict v = only(LIST, r);
      assertThat(v.error())
          .hasValue("steps [0,2,4] of 'm': step 4 is missing; step 0 is not finite: NaN; step 2 appears 2 times");
    }

    @Test
    void otherStepsMayBeAnything() {
      MetricRecord r = MetricRecord.builder().series("m", 0, 1, 2, 3, 4).point("m", 9, Double.NaN).point("m", 9, 1)
          .build();
      assertThat(evaluate(LIST, r).verdicts()).hasSize(3).allMatch(v -> v.status() == GateStatus.INACTIVE);
    }
  }
}

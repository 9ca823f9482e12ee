package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.GRAD;
import static dev.cipolicy.gate.Fixtures.SERIES;
import static dev.cipolicy.gate.Fixtures.reference;
import static dev.cipolicy.gate.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateSteps;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The band model and the statuses it gives. */
class BandModelTest {
  private static final GateSpec LAST = spec("m", GateSteps.last(), GRAD, Better.LOWER);
  private static final Coordinate C = Coordinate.of(LAST, -1);

  private static GateHistory trusted(double... newestFirst) {
    List<HistorySample> samples = new ArrayList<>();
    for (int i = 0; i < newestFirst.length; i++) {
      samples.add(Fixtures.sample(newestFirst.length - i, newestFirst[i], true));
    }
    return GateHistory.of(SERIES, Map.of(C, new CoordinateHistory(samples, List.of())));
  }

  private static CoordinateVerdict judge(double value, GateHistory history) {
    return reference().evaluate(SERIES, List.of(LAST), Fixtures.record("m", value), history).verdicts().get(0);
  }

  @Test
  void theReferenceIsTheMeanOfTheTrustedValuesAndTheBandComesFromIt() {
    CoordinateVerdict v = judge(1.2, trusted(1, 2, 3)); // ref 2: [2 − max(1.6, .1), 2 + max(1, .1)] = [0.4, 3]
    Evidence e = v.evidence().orElseThrow();
    assertThat(e.centre().getAsDouble()).isEqualTo(2);
    assertThat(e.lower().getAsDouble()).isCloseTo(0.4, within(1e-12));
    assertThat(e.upper().getAsDouble()).isEqualTo(3);
    assertThat(v.status()).isEqualTo(GateStatus.PASS);
  }

  @Test
  void theAbsoluteFloorsWinNearZero() {
    Evidence e = judge(0, trusted(0.01)).evidence().orElseThrow(); // max(.5·.01, .1) = .1; max(.8·.01, .1) = .1
    assertThat(e.upper().getAsDouble()).isCloseTo(0.11, within(1e-12));
    assertThat(e.lower().getAsDouble()).isCloseTo(-0.09, within(1e-12));
  }

  @Test
  void limitsAreInclusive() {
    assertThat(judge(3, trusted(2)).status()).isEqualTo(GateStatus.PASS);
    assertThat(judge(0.4, trusted(2)).status()).isEqualTo(GateStatus.PASS);
    assertThat(judge(Math.nextUp(3.0), trusted(2)).status()).isEqualTo(GateStatus.FAIL);
  }

  @Test
  void aNegativeReferenceUsesItsMagnitude() {
    Evidence e = judge(-2, trusted(-2)).evidence().orElseThrow(); // [-2 − 1.6, -2 + 1]
    assertThat(e.lower().getAsDouble()).isCloseTo(-3.6, within(1e-12));
    assertThat(e.upper().getAsDouble()).isEqualTo(-1);
  }

  @Test
  void onlyTheNewestTwentyTrustedValuesCount() {
    double[] values = new double[25];
    java.util.Arrays.fill(values, 0, 20, 1.0);
    java.util.Arrays.fill(values, 20, 25, 100.0); // older than the newest 20
    Evidence e = judge(1, trusted(values)).evidence().orElseThrow();
    assertThat(e.n()).isEqualTo(20);
    assertThat(e.centre().getAsDouble()).isEqualTo(1);
  }

  @Test
  void untrustedRecentValuesNeverEnterTheReference() {
    GateHistory h = GateHistory.of(SERIES, Map.of(C, new CoordinateHistory(
        List.of(Fixtures.sample(1, 1, true)), List.of(Fixtures.sample(2, 50, false), Fixtures.sample(1, 1, true)))));
    assertThat(judge(1, h).evidence().orElseThrow().centre().getAsDouble()).isEqualTo(1);
  }

  @Test
  void noTrustedHistoryIsInactive() {
    CoordinateVerdict v = judge(5, GateHistory.empty(SERIES));
    assertThat(v.status()).isEqualTo(GateStatus.INACTIVE);
    assertThat(v.reason()).isEqualTo("no trusted history (cold start)");
  }

  @Test
  void aboveTheBandOfALowerIsBetterMetricIsARegression() {
    CoordinateVerdict v = judge(10, trusted(2));
    assertThat(v.status()).isEqualTo(GateStatus.FAIL);
    assertThat(v.finding()).isEqualTo(Finding.REGRESSION);
    assertThat(v.reason()).isEqualTo("10 is above the upper limit 3 by 7 (regression)");
    assertThat(judge(0.1, trusted(2)).finding()).isEqualTo(Finding.ANOMALOUS_IMPROVEMENT);
  }

  @Test
  void aHigherIsBetterMetricIsTheOtherWayRound() {
    GateSpec reward = spec("m", GateSteps.last(), GRAD, Better.HIGHER);
    GateResult r = reference().evaluate(SERIES, List.of(reward), Fixtures.record("m", 10), trusted(2));
    assertThat(r.verdicts().get(0).finding()).isEqualTo(Finding.ANOMALOUS_IMPROVEMENT);
    r = reference().evaluate(SERIES, List.of(reward), Fixtures.record("m", 0.1), trusted(2));
    assertThat(r.verdicts().get(0).finding()).isEqualTo(Finding.REGRESSION);
  }

  @Test
  void withoutADirectionAnOutOfBandValueIsJustOutOfBand() {
    GateSpec neutral = spec("m", GateSteps.last(), GRAD);
    GateResult r = reference().evaluate(SERIES, List.of(neutral), Fixtures.record("m", 10), trusted(2));
    assertThat(r.verdicts().get(0).finding()).isEqualTo(Finding.OUT_OF_BAND);
  }

  @Test
  void missingConstraintParametersCountAsZero() {
    GateConstraint onlyRel = GateConstraint.builder().relUp(1).absFloorUp(.1).relDown(1).build();
    GateSpec tito = spec("m", GateSteps.last(), onlyRel);
    GateHistory h = GateHistory.of(SERIES, Map.of(Coordinate.of(tito, -1),
        new CoordinateHistory(List.of(Fixtures.sample(1, 0, true)), List.of())));
    GateResult r = reference().evaluate(SERIES, List.of(tito), Fixtures.record("m", 0), h);
    Evidence e = r.verdicts().get(0).evidence().orElseThrow();
    assertThat(e.lower().getAsDouble()).isZero(); // max(1·0, 0)
    assertThat(e.upper().getAsDouble()).isCloseTo(0.1, within(1e-12));
    assertThat(e.status()).isEqualTo(GateStatus.PASS);
  }

  @Test
  void theExplanationNamesTheDerivationAndTheMargin() {
    CoordinateVerdict v = judge(2.5, trusted(2));
    assertThat(v.explanation().sentence()).isEqualTo("m step last: PASS because steps=last selected 2.5 as the"
        + " last point; reference 2 = mean of the newest 1 trusted value; band [2 − max(0.8·|2|, 0.1), 2 + max(0.5·|2|,"
        + " 0.1)]; 2.5 is within [0.4, 3], 0.5 from the upper limit.");
    assertThat(v.evidence().orElseThrow().toMap()).containsEntry("binding", "upper").containsEntry("margin", 0.5);
  }
}

package dev.cipolicy.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.cipolicy.api.gate.GateConstraint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The robust models: minimum history, honest INCONCLUSIVE, their limits. */
class RobustModelsTest {
  private static final GateConstraint C = Fixtures.GRAD;
  private static final double[] NOISY = {1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98, 1.03, 0.97, 1.01, 0.99, 1.04};

  private static GateModel model(String name) {
    return GateModel.named(name).orElseThrow();
  }

  @ParameterizedTest
  @ValueSource(strings = {"median-mad", "iqr-fence", "adjacent-delta"})
  void noHistoryIsInactiveAndLessThanTheMinimumIsInsufficient(String name) {
    GateModel m = model(name);
    assertThat(m.judge(C, 1, new double[0], 0).status()).isEqualTo(GateStatus.INACTIVE);
    Evidence e = m.judge(C, 1, NOISY, 9);
    assertThat(e.status()).isEqualTo(GateStatus.INSUFFICIENT_HISTORY);
    assertThat(e.basis()).isEqualTo("9 trusted values; " + name + " needs 10");
    assertThat(m.judge(C, 1, NOISY, 10).status()).isEqualTo(GateStatus.PASS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"median-mad", "iqr-fence", "adjacent-delta"})
  void zeroSpreadIsInconclusive(String name) {
    double[] flat = new double[12];
    java.util.Arrays.fill(flat, 0.25);
    Evidence e = model(name).judge(C, 0.25, flat, 12);
    assertThat(e.status()).isEqualTo(GateStatus.INCONCLUSIVE);
    assertThat(e.inconclusive()).contains(Inconclusive.ZERO_SPREAD);
    assertThat(e.basis()).isEqualTo("the newest 12 trusted values have zero spread");
  }

  @ParameterizedTest
  @ValueSource(strings = {"median-mad", "iqr-fence", "adjacent-delta"})
  void twoSeparatedClustersAreInconclusive(String name) {
    double[] modes = {1.0, 5.0, 1.1, 5.1, 0.9, 4.9, 1.05, 5.05, 0.95, 4.95, 1.0, 5.0};
    Evidence e = model(name).judge(C, 3, modes, 12);
    assertThat(e.status()).isEqualTo(GateStatus.INCONCLUSIVE);
    assertThat(e.inconclusive()).contains(Inconclusive.BIMODAL);
    assertThat(e.basis()).isEqualTo("the newest 12 trusted values form two separated clusters of 6 and 6 values");
  }

  @Test
  void medianMadLimitsAreFiveRobustSigmasAroundTheMedian() {
    Evidence e = GateModel.medianMad().judge(C, 1, NOISY, 12);
    double[] s = NOISY.clone();
    java.util.Arrays.sort(s);
    double median = (s[5] + s[6]) / 2;
    assertThat(e.centre().getAsDouble()).isEqualTo(median);
    double sigma = e.spread().getAsDouble();
    assertThat(e.upper().getAsDouble()).isCloseTo(median + 5 * sigma, within(1e-12));
    assertThat(GateModel.medianMad().judge(C, median + 5.01 * sigma, NOISY, 12).status()).isEqualTo(GateStatus.FAIL);
  }

  @Test
  void iqrFenceLimitsAreThreeIqrsOutsideTheQuartiles() {
    double[] values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    Evidence e = GateModel.iqrFence().judge(C, 6, values, 11); // Q1 = 3.5, Q3 = 8.5, IQR = 5
    assertThat(e.spread().getAsDouble()).isEqualTo(5);
    assertThat(e.lower().getAsDouble()).isEqualTo(-11.5);
    assertThat(e.upper().getAsDouble()).isEqualTo(23.5);
  }

  @Test
  void adjacentDeltaFollowsASlowDriftThatAGlobalSpreadWouldMissOrFlag() {
    double[] drifting = new double[20]; // newest first: 2.0, 1.95, ... a steady climb with tiny noise
    for (int i = 0; i < 20; i++) {
      drifting[i] = 2.0 - 0.05 * i + (i % 2 == 0 ? 0.001 : -0.001);
    }
    Evidence delta = GateModel.adjacentDelta().judge(C, 2.05, drifting, 20);
    assertThat(delta.status()).isEqualTo(GateStatus.PASS);
    assertThat(delta.centre().getAsDouble()).isCloseTo(1.9, within(1e-3));
    Evidence mad = GateModel.medianMad().judge(C, 2.05, drifting, 20);
    assertThat(mad.centre().getAsDouble()).isCloseTo(1.525, within(1e-3)); // the median lags the drift
  }

  @Test
  void parametersAreValidated() {
    assertThatThrownBy(() -> new GateModel.MedianMad(20, 2, 5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a model needs 1 <= window and 3 <= min history <= window, got window 20 and min history 2");
    assertThatThrownBy(() -> new GateModel.IqrFence(20, 10, 0)).hasMessage("k must be a positive finite number, got 0.0");
    assertThatThrownBy(() -> new GateModel.Band(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new GateModel.AdjacentDelta(20, 10, 11, 5)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void modelsAreNamed() {
    assertThat(GateModel.defaults()).extracting(GateModel::name)
        .containsExactly("band", "median-mad", "iqr-fence", "adjacent-delta");
    assertThat(GateModel.named("zscore")).isEmpty();
  }
}

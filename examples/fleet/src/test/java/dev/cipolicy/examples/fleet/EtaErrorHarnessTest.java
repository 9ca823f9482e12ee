package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The harness replays simulated days deterministically and reports both models' errors. */
class EtaErrorHarnessTest {
  @Test
  void twoSimulatedDaysGiveTheSameErrorsForTheSameSeed() {
    EtaErrorHarness.Result a = EtaErrorHarness.run(2, 3);
    assertThat(a.requests()).isPositive();
    assertThat(a.samples()).isGreaterThan(a.requests());
    assertThat(a.oursMeanMinutes()).isFinite().isNotNegative();
    assertThat(a.globalP90Minutes()).isFinite().isGreaterThanOrEqualTo(a.globalMeanMinutes() * 0.5);
    assertThat(EtaErrorHarness.run(2, 3)).isEqualTo(a);
    assertThat(a.report()).contains("per-(group, tag) median MAE").contains("global duration x position MAE");
  }
}

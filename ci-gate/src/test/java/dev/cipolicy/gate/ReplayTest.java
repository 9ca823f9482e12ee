package dev.cipolicy.gate;

import static dev.cipolicy.gate.Fixtures.GRAD_ALL;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Backtesting a rule over stored history. */
class ReplayTest {
  private static List<HistorySample> history(double... values) {
    List<HistorySample> out = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      out.add(Fixtures.sample(i + 1, values[i], i % 2 == 0)); // stored trust flags are ignored
    }
    return out;
  }

  @Test
  void reportsTheWouldBeAlertsOfTheBand() {
    ReplayReport r = Replay.replay(GateRule.of(GRAD_ALL, GateModel.band()), history(1, 1.1, 0.9, 5, 1.0, 0.95));
    assertThat(r.evaluated()).isEqualTo(6);
    assertThat(r.counts()).containsEntry(GateStatus.INACTIVE, 1).containsEntry(GateStatus.PASS, 4)
        .containsEntry(GateStatus.FAIL, 1);
    assertThat(r.alerts()).singleElement().satisfies(a -> {
      assertThat(a.index()).isEqualTo(3);
      assertThat(a.runId()).isEqualTo(new RunId(4));
      assertThat(a.finding()).isEqualTo(Finding.REGRESSION);
      assertThat(a.evidence().centre().getAsDouble()).isEqualTo(1.0);
    });
    assertThat(r.alertRate()).isEqualTo(1 / 6.0);
  }

  @Test
  void theRuleJudgesWithItsOwnTrustNotTheStoredFlags() {
    // after the failing 5, the band's reference stays 1 because the replay never trusted the 5
    ReplayReport r = Replay.replay(GateRule.of(GRAD_ALL, GateModel.band()), history(1, 5, 1));
    assertThat(r.alerts()).extracting(ReplayReport.Alert::index).containsExactly(1);
  }

  @Test
  void aRobustModelNeedsItsMinimumHistory() {
    double[] values = new double[12];
    for (int i = 0; i < values.length; i++) {
      values[i] = 1 + 0.01 * (i % 3);
    }
    ReplayReport r = Replay.replay(GateRule.of(GRAD_ALL, GateModel.medianMad()), history(values));
    assertThat(r.counts()).containsEntry(GateStatus.INACTIVE, 1).containsEntry(GateStatus.INSUFFICIENT_HISTORY, 9)
        .containsEntry(GateStatus.PASS, 2);
  }

  @Test
  void acceptingLevelShiftsLetsTheBaselineFollow() {
    double[] values = {1, 1, 1, 1, 2, 2.05, 1.95, 2, 2, 2};
    ReplayReport kept = Replay.replay(new GateRule(GRAD_ALL, GateModel.band(), 3, false), history(values));
    assertThat(kept.alerts()).hasSize(6);
    assertThat(kept.shifts()).extracting(ReplayReport.Shift::index).containsExactly(6, 7, 8, 9);
    ReplayReport accepted = Replay.replay(new GateRule(GRAD_ALL, GateModel.band(), 3, true), history(values));
    assertThat(accepted.alerts()).extracting(ReplayReport.Alert::index).containsExactly(4, 5, 6);
    assertThat(accepted.shifts()).singleElement().satisfies(s -> {
      assertThat(s.index()).isEqualTo(6);
      assertThat(s.fromLevel()).isEqualTo(1);
      assertThat(s.toLevel()).isEqualTo(2);
      assertThat(s.accepted()).isTrue();
    });
  }

  @Test
  void anEmptyHistoryReportsNothing() {
    ReplayReport r = Replay.replay(GateRule.of(GRAD_ALL, GateModel.band()), List.of());
    assertThat(r.evaluated()).isZero();
    assertThat(r.alertRate()).isZero();
  }
}

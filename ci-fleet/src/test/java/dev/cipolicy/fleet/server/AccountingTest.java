package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.fleet.server.Accounting.JobRun;
import dev.cipolicy.fleet.server.Api.AccountingDto;
import dev.cipolicy.fleet.server.Api.ShareDto;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The accounting math: GPU-hours with window clipping, wait percentiles, the window parameter, share samples. */
class AccountingTest {

  private static final Instant NOW = Instant.parse("2026-12-08T12:00:00Z");
  private static final Duration WEEK = Duration.ofDays(7);
  private static final Instant FROM = NOW.minus(WEEK);

  private static JobRun run(long id, String cadence, int gpus, Instant ready, Instant start, Instant end) {
    return new JobRun(id, cadence, "h200", gpus, ready, null, start, end);
  }

  @Test
  void gpuHoursAreGpusTimesHoursPerCadenceAndPool() {
    List<JobRun> runs = List.of(
        run(1, "nightly", 8, NOW.minusSeconds(7200), NOW.minusSeconds(7200), NOW.minusSeconds(3600)), // 8 GPU-h
        run(2, "nightly", 2, NOW.minusSeconds(9000), NOW.minusSeconds(9000), NOW.minusSeconds(1800)), // 2 x 2 h = 4
        run(3, "regular", 1, NOW.minusSeconds(1800), NOW.minusSeconds(1800), null)); // still running: 0.5 GPU-h
    AccountingDto a = Accounting.compute(NOW, WEEK, runs, List.of(), false);
    assertThat(a.gpuHours()).extracting(g -> g.cadence() + "/" + g.pool() + "=" + g.gpuHours() + "x" + g.runs())
        .containsExactly("nightly/h200=12.0x2", "regular/h200=0.5x1");
    assertThat(a.from()).isEqualTo(FROM.toString());
    assertThat(a.windowSeconds()).isEqualTo(WEEK.toSeconds());
  }

  @Test
  void aJobThatStraddlesTheWindowStartCountsOnlyItsPartInsideIt() {
    // started 3 h before the window, ended 1 h into it: 4 GPUs x 1 h
    JobRun straddling = run(1, "nightly", 4, FROM.minusSeconds(4 * 3600), FROM.minusSeconds(3 * 3600),
        FROM.plusSeconds(3600));
    JobRun before = run(2, "nightly", 8, FROM.minusSeconds(9000), FROM.minusSeconds(7200), FROM.minusSeconds(60));
    AccountingDto a = Accounting.compute(NOW, WEEK, List.of(straddling, before), List.of(), false);
    assertThat(a.gpuHours()).singleElement().satisfies(g -> {
      assertThat(g.gpuHours()).isEqualTo(4.0);
      assertThat(g.runs()).isEqualTo(1);
    });
    // it was claimed before the window: its wait belongs to an earlier window
    assertThat(a.waits()).isEmpty();
  }

  @Test
  void waitPercentilesAreNearestRankPerGpuCount() {
    List<JobRun> runs = new ArrayList<>();
    for (int i = 1; i <= 100; i++) { // 8-GPU jobs waiting 1..100 minutes
      Instant start = NOW.minusSeconds(86_400L + i);
      runs.add(run(i, "nightly", 8, start.minusSeconds(60L * i), start, start.plusSeconds(10)));
    }
    runs.add(run(500, "regular", 1, NOW.minusSeconds(100), NOW.minusSeconds(70), NOW.minusSeconds(10)));
    AccountingDto a = Accounting.compute(NOW, WEEK, runs, List.of(), false);
    assertThat(a.waits()).hasSize(2);
    assertThat(a.waits().get(0).gpus()).isEqualTo(1);
    assertThat(a.waits().get(0).p99Seconds()).isEqualTo(30.0);
    Api.WaitPercentilesDto eight = a.waits().get(1);
    assertThat(eight.gpus()).isEqualTo(8);
    assertThat(eight.jobs()).isEqualTo(100);
    assertThat(eight.p50Seconds()).isEqualTo(50 * 60.0);
    assertThat(eight.p90Seconds()).isEqualTo(90 * 60.0);
    assertThat(eight.p99Seconds()).isEqualTo(99 * 60.0);
  }

  @Test
  void theWaitEndsAtTheFirstClaimAndTheHoursCountTheLastAttempt() {
    // ready 1 h ago, first claimed 50 min ago (an attempt that crashed), claimed again 20 min ago, ended 10 min ago
    JobRun retried = new JobRun(1, "nightly", "h200", 2, NOW.minusSeconds(3600), NOW.minusSeconds(3000),
        NOW.minusSeconds(1200), NOW.minusSeconds(600));
    // first claimed before the window: its wait belongs to an earlier window, though its last attempt is inside
    JobRun early = new JobRun(2, "nightly", "h200", 2, FROM.minusSeconds(600), FROM.minusSeconds(60),
        NOW.minusSeconds(1200), NOW.minusSeconds(600));
    AccountingDto a = Accounting.compute(NOW, WEEK, List.of(retried, early), List.of(), false);
    assertThat(a.waits()).singleElement().satisfies(w -> {
      assertThat(w.jobs()).isEqualTo(1);
      assertThat(w.p50Seconds()).isEqualTo(600.0);
    });
    // each: 2 GPUs x 10 min of its last attempt
    assertThat(a.gpuHours()).singleElement().satisfies(g -> assertThat(g.gpuHours()).isEqualTo(0.667));
  }

  @Test
  void percentileOfFewValuesIsTheNearestRankAndNoneIsNull() {
    assertThat(Accounting.percentile(List.of(), 50)).isNull();
    assertThat(Accounting.percentile(List.of(7.0), 99)).isEqualTo(7.0);
    assertThat(Accounting.percentile(List.of(1.0, 2.0, 3.0), 50)).isEqualTo(2.0);
    assertThat(Accounting.percentile(List.of(1.0, 2.0, 3.0), 90)).isEqualTo(3.0);
    assertThat(Accounting.percentile(List.of(1.0, 2.0, 3.0, 4.0), 50)).isEqualTo(2.0);
  }

  @Test
  void runsWithoutARecordedStartAreCountedApartAndLeftOutOfHoursAndWaits() {
    List<JobRun> runs = List.of(
        new JobRun(1, "nightly", "h200", 8, NOW.minusSeconds(600), null, null, NOW.minusSeconds(60)),
        new JobRun(2, "nightly", "h200", 8, FROM.minusSeconds(600), null, null, FROM.minusSeconds(60)), // ended before
        new JobRun(3, "nightly", "h200", 8, NOW.minusSeconds(600), null, null, null));
    AccountingDto a = Accounting.compute(NOW, WEEK, runs, List.of(), true);
    assertThat(a.jobsWithoutStart()).isEqualTo(2);
    assertThat(a.gpuHours()).isEmpty();
    assertThat(a.waits()).isEmpty();
    assertThat(a.truncated()).isTrue();
  }

  @Test
  void theWindowParameterIsANumberWithAUnitWithinDocumentedLimits() {
    assertThat(Accounting.window(null)).isEqualTo(Duration.ofDays(7));
    assertThat(Accounting.window(" ")).isEqualTo(Duration.ofDays(7));
    assertThat(Accounting.window("24h")).isEqualTo(Duration.ofHours(24));
    assertThat(Accounting.window("90m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(Accounting.window("31d")).isEqualTo(Duration.ofDays(31));
    for (String bad : List.of("7", "7w", "-1d", "0m", "32d", "1.5d", "d", "99999999d", "7d;drop")) {
      assertThatThrownBy(() -> Accounting.window(bad)).isInstanceOf(FleetView.BadRequest.class)
          .hasMessageContaining("window '").hasMessageNotContaining("\n");
    }
  }

  @Test
  void shareSamplesAreSpacedBoundedAndClippedToTheWindow() {
    ShareSamples ring = new ShareSamples(Duration.ofMinutes(5), 3);
    List<ShareDto> bars = List.of(new ShareDto("nightly", "h200", "gpus", 4, 12, 16, true, "policy fleet.shares"));
    assertThat(ring.offer(NOW.minusSeconds(3600), bars)).isTrue();
    assertThat(ring.offer(NOW.minusSeconds(3500), bars)).isFalse(); // less than 5 minutes later
    assertThat(ring.offer(NOW.minusSeconds(1200), bars)).isTrue();
    assertThat(ring.offer(NOW.minusSeconds(600), bars)).isTrue();
    assertThat(ring.offer(NOW, List.of(new ShareDto("nightly", "h200", "gpus", 8, 12, 16, true, "p")))).isTrue();
    assertThat(ring.samples()).hasSize(3).first().satisfies(s -> assertThat(s.at()).isEqualTo(NOW.minusSeconds(1200)));
    AccountingDto a = Accounting.compute(NOW, Duration.ofMinutes(15), List.of(), ring.samples(), false);
    assertThat(a.shareUse()).singleElement().satisfies(s -> {
      assertThat(s.cadence()).isEqualTo("nightly");
      assertThat(s.limit()).isEqualTo(12);
      assertThat(s.at()).containsExactly(NOW.minusSeconds(600).toString(), NOW.toString());
      assertThat(s.used()).containsExactly(4, 8);
    });
  }
}

package dev.cipolicy.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.policy.ScheduleRule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The whole-table overlap proof compares only the pairs that overlap: schedules grouped by their fields and
 * indexed by minute and day, never every pair of a table whose schedules share a minute and an hour.
 */
class ScheduleOverlapsTest {

  /** {@code n} schedules all at 15:00 UTC, each on its own day of the year, so no two overlap. */
  private static List<CronSchedule> sameMinuteDistinctDays(int n) {
    List<CronSchedule> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(CronSchedule.parse("0 15 " + (i % 28 + 1) + " " + (i / 28 % 12 + 1) + " *"));
    }
    return out;
  }

  @Test
  void aFullTableAtOneMinuteWithoutOverlapsComparesNoPair() {
    ScheduleOverlaps.Proof proof = ScheduleOverlaps.prove(sameMinuteDistinctDays(ScheduleRule.MAX_SCHEDULES));
    assertThat(proof.overlaps()).isEmpty();
    // the pairwise proof compared 256 * 255 / 2 = 32640 pairs here
    assertThat(proof.pairsCompared()).isZero();
  }

  @Test
  void eachOverlapIsOneComparisonAndFound() {
    List<CronSchedule> table = new ArrayList<>(sameMinuteDistinctDays(200));
    table.add(CronSchedule.parse("0 15 * 3 1")); // every Monday of March: meets each 0 15 d 3 * once
    table.add(CronSchedule.parse("30 15 * * *")); // daily, but at another minute: meets nothing
    ScheduleOverlaps.Proof proof = ScheduleOverlaps.prove(table);
    assertThat(proof.overlaps()).hasSize(28).allSatisfy(o -> assertThat(o.second()).isEqualTo(200));
    assertThat(proof.pairsCompared()).isEqualTo(28);
    assertThat(proof.overlaps().get(3)).isEqualTo(new ScheduleOverlaps.Overlap(59, 200,
        Instant.parse("2024-03-04T15:00:00Z")));
  }

  @Test
  void identicalSchedulesAllOverlapInOrder() {
    List<CronSchedule> table = List.of(CronSchedule.parse("0 3 * * *"), CronSchedule.parse("0 3 * * *"),
        CronSchedule.parse("0 4 * * *"), CronSchedule.parse("0 3 * * *"));
    ScheduleOverlaps.Proof proof = ScheduleOverlaps.prove(table);
    assertThat(proof.overlaps()).extracting(o -> o.first() + "-" + o.second()).containsExactly("0-1", "0-3", "1-3");
    assertThat(proof.pairsCompared()).isEqualTo(3);
  }
}

package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.policy.ScheduleRule;
import org.junit.jupiter.api.Test;

/** The schedule table's size limit: one over it is one problem naming the limit, a table at it is accepted. */
class ScheduleTableLimitTest {
  private static final String BASE = """
      name: mini
      cadences:
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      events:
        schedule: {source: schedule_table}
      schedules:
      """;

  /** {@code n} schedules, all at 15:00 UTC, each on its own day of the year, so no two overlap. */
  private static String table(int n) {
    StringBuilder sb = new StringBuilder(BASE);
    for (int i = 0; i < n; i++) {
      sb.append("  - {cron: \"0 15 ").append(i % 28 + 1).append(' ').append(i / 28 % 12 + 1)
          .append(" *\", cadence: nightly}\n");
    }
    return sb.toString();
  }

  @Test
  void aTableAboveTheLimitIsOneProblem() {
    InvalidPolicyException e = catchThrowableOfType(InvalidPolicyException.class,
        () -> PolicyLoader.load("big.yaml", table(ScheduleRule.MAX_SCHEDULES + 1)));
    assertThat(e).isNotNull();
    assertThat(e.problems()).extracting(PolicyProblem::toString)
        .containsExactly("big.yaml:6:1: schedules: the schedule table has " + (ScheduleRule.MAX_SCHEDULES + 1)
            + " schedules; at most " + ScheduleRule.MAX_SCHEDULES + " are accepted");
    assertThat(e.getMessage()).doesNotContain("\n");
  }

  @Test
  void aTableAtTheLimitAllAtOneMinuteIsProvedFreeOfOverlaps() {
    // the proof's cost is counted in ScheduleOverlapsTest; here the table at the limit is accepted whole
    LoadedPolicy loaded = PolicyLoader.load("full.yaml", table(ScheduleRule.MAX_SCHEDULES));
    assertThat(loaded.policy().schedules()).hasSize(ScheduleRule.MAX_SCHEDULES);
    assertThat(loaded.warnings()).isEmpty();
  }

  @Test
  void overlapsInABigTableAreStillFound() {
    String yaml = table(200) + "  - {cron: \"0 15 * 3 1\", cadence: nightly}\n";
    LoadedPolicy loaded = PolicyLoader.load("overlap.yaml", yaml);
    assertThat(loaded.warnings()).isNotEmpty().allSatisfy(w -> assertThat(w.code()).isEqualTo("schedule-overlap"));
    // every day 1-28 of March is a Monday in some year of the 28-year cycle
    assertThat(loaded.warnings()).hasSize(28).extracting(w -> w.message()).contains("schedules[200].cron: crons"
        + " '0 15 4 3 *' and '0 15 * 3 1' (both nightly) both fire at 2024-03-04T15:00:00Z, starting two runs");
  }
}

package dev.cipolicy.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Cron parsing and firing times behind our own type. */
class CronScheduleTest {
  @Test
  void theReferenceCronsFireAt1500UtcOnTheirDays() {
    CronSchedule nightly = CronSchedule.parse("0 15 * * 0-5");
    CronSchedule weekly = CronSchedule.parse("0 15 * * 6");
    assertThat(nightly.minutesOfDay()).containsExactly(900);
    assertThat(weekly.nextFiringAfter(Instant.parse("2026-11-29T00:00:00Z")))
        .contains(Instant.parse("2026-12-05T15:00:00Z"));
    assertThat(nightly.firesAt(Instant.parse("2026-11-29T15:00:30Z"))).isTrue();
    assertThat(nightly.firesAt(Instant.parse("2026-11-28T15:00:00Z"))).isFalse();
    assertThat(ScheduleOverlaps.firstSharedInstant(nightly, weekly)).isEmpty();
  }

  @Test
  void nextFiringDayIsInclusive() {
    CronSchedule c = CronSchedule.parse("0 0 * * *");
    assertThat(c.nextFiringDay(LocalDate.of(2024, 3, 1))).contains(LocalDate.of(2024, 3, 1));
  }

  @Test
  void denseCronsAreComparedWithoutEnumeratingEveryMinute() {
    CronSchedule even = CronSchedule.parse("*/2 * * * *");
    CronSchedule odd = CronSchedule.parse("1-59/2 * * * *");
    assertThat(even.minutesOfDay()).hasSize(720);
    assertThat(ScheduleOverlaps.firstSharedInstant(even, odd)).isEmpty();
    assertThat(ScheduleOverlaps.firstSharedInstant(even, CronSchedule.parse("4 3 * * *")))
        .contains(Instant.parse("2024-01-01T03:04:00Z"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "* * * *", "60 * * * *", "* 24 * * *", "* * 32 * *", "* * * 13 *", "* * * * 8",
      "a b c d e", "0 15 * * 0-5 extra", "0\t15 * * *", "0 15 * * mon\u00e9", "@reboot", "1-", "*/0 * * * *", "5-1 * * * *"})
  void invalidExpressionsAreOurException(String expression) {
    assertThatThrownBy(() -> CronSchedule.parse(expression))
        .isInstanceOf(InvalidCronException.class)
        .hasMessageStartingWith("invalid cron '" + expression.replace("\t", "\\u0009").replace("\u00e9", "\\u00e9")
            + "': ")
        .hasMessageEndingWith("(expected five fields: minute hour day-of-month month day-of-week, UTC)");
  }

  @Test
  void theMessageIsOneLineWhateverTheExpression() {
    assertThatThrownBy(() -> CronSchedule.parse("0 15\n::error::forged\r\n" + "x".repeat(500)))
        .isInstanceOf(InvalidCronException.class)
        .hasMessageStartingWith("invalid cron '0 15\\u000a::error::forged\\u000d\\u000axxx")
        .hasMessageContaining("... (522 characters)': ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\r"));
  }
}

package dev.cipolicy.core.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A five-field UNIX cron expression evaluated in UTC, as GitHub Actions schedules are. Instances are
 * immutable and thread-safe; cron-utils stays behind this type.
 */
public final class CronSchedule {

  /** The first instant of the window over which schedules are compared: 2024-01-01T00:00Z. */
  public static final Instant CYCLE_START = Instant.parse("2024-01-01T00:00:00Z");

  /**
   * The end (exclusive) of the comparison window: 28 years after {@link #CYCLE_START}, one full cycle
   * of weekdays and leap years of the Gregorian calendar between 1901 and 2099, so every combination
   * of month, day of month and weekday a cron can name occurs in it.
   */
  public static final Instant CYCLE_END = Instant.parse("2052-01-01T00:00:00Z");

  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  private final String expression;
  private final ExecutionTime executionTime;
  private final List<Integer> minutesOfDay;

  private CronSchedule(String expression, ExecutionTime executionTime) {
    this.expression = expression;
    this.executionTime = executionTime;
    this.minutesOfDay = computeMinutesOfDay();
  }

  /**
   * Parses a five-field UNIX cron expression.
   *
   * @param expression e.g. {@code 0 15 * * 0-5}
   * @return the schedule
   * @throws InvalidCronException when the expression does not parse
   */
  public static CronSchedule parse(String expression) {
    if (expression.isBlank()) {
      throw new InvalidCronException(expression, "the expression is empty");
    }
    if (expression.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
      throw new InvalidCronException(expression, "the expression contains a control or non-ASCII character");
    }
    Cron cron;
    try {
      cron = PARSER.parse(expression).validate();
    } catch (RuntimeException e) {
      String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new InvalidCronException(expression, reason);
    }
    return new CronSchedule(expression, ExecutionTime.forCron(cron));
  }

  /**
   * The expression exactly as parsed.
   *
   * @return the cron string
   */
  public String expression() {
    return expression;
  }

  /**
   * The first firing strictly after {@code instant}.
   *
   * @param instant the lower bound (exclusive)
   * @return the next firing instant, if the cron ever fires again
   */
  public Optional<Instant> nextFiringAfter(Instant instant) {
    return executionTime.nextExecution(ZonedDateTime.ofInstant(instant, ZoneOffset.UTC))
        .map(ZonedDateTime::toInstant);
  }

  /**
   * Whether the cron fires at the minute containing {@code instant}.
   *
   * @param instant any instant; seconds are ignored
   * @return true when the cron fires in that minute
   */
  public boolean firesAt(Instant instant) {
    ZonedDateTime minute = ZonedDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MINUTES), ZoneOffset.UTC);
    return executionTime.isMatch(minute);
  }

  /**
   * The first date on or after {@code from} on which the cron fires.
   *
   * @param from the first candidate date
   * @return the date, if the cron fires again
   */
  public Optional<LocalDate> nextFiringDay(LocalDate from) {
    ZonedDateTime justBefore = from.atStartOfDay(ZoneOffset.UTC).minusMinutes(1);
    return executionTime.nextExecution(justBefore).map(ZonedDateTime::toLocalDate);
  }

  /**
   * The minutes of the day (0–1439, ascending) at which the cron fires on any day it fires; in a UNIX
   * cron the time of day does not depend on the date. Empty when the cron never fires in the
   * comparison window.
   *
   * @return an unmodifiable ascending list
   */
  public List<Integer> minutesOfDay() {
    return minutesOfDay;
  }

  private List<Integer> computeMinutesOfDay() {
    Optional<LocalDate> day = nextFiringDay(LocalDate.ofInstant(CYCLE_START, ZoneOffset.UTC));
    if (day.isEmpty() || !day.get().atStartOfDay(ZoneOffset.UTC).toInstant().isBefore(CYCLE_END)) {
      return List.of();
    }
    List<Integer> minutes = new ArrayList<>();
    ZonedDateTime cursor = day.get().atStartOfDay(ZoneOffset.UTC).minusMinutes(1);
    while (true) {
      Optional<ZonedDateTime> next = executionTime.nextExecution(cursor);
      if (next.isEmpty() || !next.get().toLocalDate().equals(day.get())) {
        break;
      }
      LocalTime t = next.get().toLocalTime();
      minutes.add(t.getHour() * 60 + t.getMinute());
      cursor = next.get();
    }
    return Collections.unmodifiableList(minutes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CronSchedule other && other.expression.equals(expression);
  }

  @Override
  public int hashCode() {
    return expression.hashCode();
  }

  @Override
  public String toString() {
    return expression;
  }
}

package dev.cipolicy.core.schedule;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Finds the first minute at which two cron schedules both fire, from their real firing times.
 *
 * <p>Two UNIX crons fire together exactly when their times of day intersect and they share a firing
 * date. The search leapfrogs between the two schedules' next firing dates, so it costs one step per
 * date on which at least one of them fires — at most about ten thousand steps over the 28-year cycle —
 * whatever the number of firings per day.
 */
public final class ScheduleOverlaps {
  private ScheduleOverlaps() {}

  /**
   * The first instant in {@code [from, until)} at which both schedules fire.
   *
   * @param a one schedule
   * @param b the other schedule
   * @param from the start of the window (inclusive); must be the start of a UTC day
   * @param until the end of the window (exclusive)
   * @return the first shared firing instant, if any
   */
  public static Optional<Instant> firstSharedInstant(
      CronSchedule a, CronSchedule b, Instant from, Instant until) {
    if (!from.equals(LocalDate.ofInstant(from, ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant())) {
      throw new IllegalArgumentException("the window must start at a UTC day boundary, got " + from);
    }
    TreeSet<Integer> common = new TreeSet<>(a.minutesOfDay());
    common.retainAll(b.minutesOfDay());
    if (common.isEmpty()) {
      return Optional.empty();
    }
    int minute = common.first();
    LocalDate last = LocalDate.ofInstant(until.minusNanos(1), ZoneOffset.UTC);
    LocalDate cursor = LocalDate.ofInstant(from, ZoneOffset.UTC);
    while (!cursor.isAfter(last)) {
      Optional<LocalDate> da = a.nextFiringDay(cursor);
      if (da.isEmpty() || da.get().isAfter(last)) {
        return Optional.empty();
      }
      Optional<LocalDate> db = b.nextFiringDay(da.get());
      if (db.isEmpty() || db.get().isAfter(last)) {
        return Optional.empty();
      }
      if (db.get().equals(da.get())) {
        Instant shared = da.get().atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(60L * minute);
        return shared.isBefore(until) ? Optional.of(shared) : Optional.empty();
      }
      cursor = db.get();
    }
    return Optional.empty();
  }

  /**
   * The first shared instant over the full comparison cycle
   * ({@link CronSchedule#CYCLE_START} to {@link CronSchedule#CYCLE_END}).
   *
   * @param a one schedule
   * @param b the other schedule
   * @return the first shared firing instant, if any
   */
  public static Optional<Instant> firstSharedInstant(CronSchedule a, CronSchedule b) {
    return firstSharedInstant(a, b, CronSchedule.CYCLE_START, CronSchedule.CYCLE_END);
  }

  /**
   * Whether the schedule fires at least once in the comparison cycle.
   *
   * @param schedule the schedule
   * @return true when it fires between {@link CronSchedule#CYCLE_START} and {@link CronSchedule#CYCLE_END}
   */
  public static boolean firesInCycle(CronSchedule schedule) {
    List<Integer> minutes = schedule.minutesOfDay();
    return !minutes.isEmpty();
  }
}

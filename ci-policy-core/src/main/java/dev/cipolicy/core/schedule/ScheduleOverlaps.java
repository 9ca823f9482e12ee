package dev.cipolicy.core.schedule;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Finds the first minute at which two cron schedules both fire, from their real firing times.
 *
 * <p>Two UNIX crons fire together exactly when their times of day intersect and they share a firing
 * date. The search leapfrogs between the two schedules' next firing dates, so it costs one step per
 * date on which at least one of them fires — at most about ten thousand steps over the 28-year cycle —
 * whatever the number of firings per day. {@link #overlaps(List)} proves a whole table at once: a schedule
 * fires at each of its minutes of the day on each of its firing days, so two schedules overlap exactly when
 * they share a minute and a day. Schedules are grouped by their time fields and by their date fields, each
 * group is indexed once by the minutes and days it fires at, and each schedule reads the schedules it
 * overlaps from the index of its two groups: a table costs work in proportion to its schedules' firing
 * minutes and days and to the overlaps found, and pairs that do not overlap are never compared.
 */
public final class ScheduleOverlaps {
  private ScheduleOverlaps() {}

  /** The first day of the comparison cycle. */
  private static final LocalDate FIRST_DAY = LocalDate.ofInstant(CronSchedule.CYCLE_START, ZoneOffset.UTC);

  /** The number of days in the comparison cycle. */
  private static final int CYCLE_DAYS =
      (int) ChronoUnit.DAYS.between(FIRST_DAY, LocalDate.ofInstant(CronSchedule.CYCLE_END, ZoneOffset.UTC));

  /**
   * For each day of the month (1-31) and day of the week (0-6, Monday first), a date of a 31-day month in the
   * cycle with both; every combination occurs in the 28-year cycle.
   */
  private static final LocalDate[][] REPRESENTATIVE = representatives();

  /** For each day of the cycle: its month (1-12), day of the month (1-31) and day of the week (0-6, Monday 0). */
  private static final byte[] MONTH = new byte[CYCLE_DAYS];
  private static final byte[] DAY_OF_MONTH = new byte[CYCLE_DAYS];
  private static final byte[] DAY_OF_WEEK = new byte[CYCLE_DAYS];

  static {
    LocalDate day = FIRST_DAY;
    for (int i = 0; i < CYCLE_DAYS; i++, day = day.plusDays(1)) {
      MONTH[i] = (byte) day.getMonthValue();
      DAY_OF_MONTH[i] = (byte) day.getDayOfMonth();
      DAY_OF_WEEK[i] = (byte) (day.getDayOfWeek().getValue() - 1);
    }
  }

  private static LocalDate[][] representatives() {
    LocalDate[][] out = new LocalDate[32][7];
    for (int d = 0; d < CYCLE_DAYS; d++) {
      LocalDate day = FIRST_DAY.plusDays(d);
      if (day.lengthOfMonth() == 31 && out[day.getDayOfMonth()][day.getDayOfWeek().getValue() - 1] == null) {
        out[day.getDayOfMonth()][day.getDayOfWeek().getValue() - 1] = day;
      }
    }
    return out;
  }

  /**
   * Two schedules of a list that both fire at some minute of the comparison cycle.
   *
   * @param first the index of one schedule in the list
   * @param second the index of the other, larger than {@code first}
   * @param at the first instant at which both fire
   */
  public record Overlap(int first, int second, Instant at) {}

  /**
   * Every pair of schedules that fire together in the comparison cycle, with the first shared instant: the same
   * answer as {@link #firstSharedInstant(CronSchedule, CronSchedule)} for each pair, ordered by the first index,
   * then the second. Schedules that never fire are never part of an overlap.
   *
   * @param schedules the schedules
   * @return the overlapping pairs
   */
  public static List<Overlap> overlaps(List<CronSchedule> schedules) {
    return prove(schedules).overlaps();
  }

  /**
   * The overlaps of a table and the number of pairs of schedules compared to find them.
   *
   * @param overlaps the overlapping pairs, as {@link #overlaps(List)} returns them
   * @param pairsCompared how many pairs the proof looked at: only the overlapping ones
   */
  record Proof(List<Overlap> overlaps, int pairsCompared) {}

  /** The proof behind {@link #overlaps(List)}, with its count of compared pairs. */
  static Proof prove(List<CronSchedule> schedules) {
    int n = schedules.size();
    BitSet[] minutes = new BitSet[n];
    BitSet[] days = new BitSet[n];
    Map<String, BitSet> byDayRule = new HashMap<>();
    Map<BitSet, BitSet> byMinutes = new HashMap<>();
    DaySets daySets = new DaySets();
    @Nullable BitSet[] atMinute = new BitSet[24 * 60];
    @Nullable BitSet[] onDay = new BitSet[CYCLE_DAYS];
    for (int i = 0; i < n; i++) {
      CronSchedule s = schedules.get(i);
      BitSet m = new BitSet(24 * 60);
      s.minutesOfDay().forEach(m::set);
      minutes[i] = byMinutes.computeIfAbsent(m, k -> k); // one bit set per group of equal time fields
      days[i] = byDayRule.computeIfAbsent(dayRule(s), k -> daySets.of(s));
      index(atMinute, minutes[i], i, n);
      index(onDay, days[i], i, n);
    }
    // per group: every schedule that shares at least one minute (day) with the group's schedules
    IdentityHashMap<BitSet, BitSet> sharingMinute = new IdentityHashMap<>();
    IdentityHashMap<BitSet, BitSet> sharingDay = new IdentityHashMap<>();
    List<Overlap> out = new ArrayList<>();
    int compared = 0;
    for (int x = 0; x < n; x++) {
      BitSet partners = (BitSet) sharingMinute.computeIfAbsent(minutes[x], k -> union(atMinute, k, n)).clone();
      partners.and(sharingDay.computeIfAbsent(days[x], k -> union(onDay, k, n)));
      for (int y = partners.nextSetBit(x + 1); y >= 0; y = partners.nextSetBit(y + 1)) {
        compared++;
        BitSet minute = (BitSet) minutes[x].clone();
        minute.and(minutes[y]);
        BitSet day = (BitSet) days[x].clone();
        day.and(days[y]);
        out.add(new Overlap(x, y, FIRST_DAY.plusDays(day.nextSetBit(0)).atStartOfDay(ZoneOffset.UTC).toInstant()
            .plusSeconds(60L * minute.nextSetBit(0))));
      }
    }
    return new Proof(List.copyOf(out), compared);
  }

  /** Records schedule {@code i} under each bit of {@code bits} in the index. */
  private static void index(@Nullable BitSet[] index, BitSet bits, int i, int n) {
    for (int b = bits.nextSetBit(0); b >= 0; b = bits.nextSetBit(b + 1)) {
      BitSet at = index[b];
      if (at == null) {
        at = new BitSet(n);
        index[b] = at;
      }
      at.set(i);
    }
  }

  /** The schedules the index holds under any bit of {@code bits}. */
  private static BitSet union(@Nullable BitSet[] index, BitSet bits, int n) {
    BitSet out = new BitSet(n);
    for (int b = bits.nextSetBit(0); b >= 0; b = bits.nextSetBit(b + 1)) {
      out.or(Objects.requireNonNull(index[b], "indexed by the schedule itself"));
    }
    return out;
  }

  /** The date fields of a cron (day of month, month, day of week), which alone decide its firing days. */
  private static String dayRule(CronSchedule s) {
    String[] f = s.expression().strip().split("\\s+", -1);
    return f.length == 5 ? f[2] + " " + f[3] + " " + f[4] : s.expression();
  }

  /**
   * The days of the cycle on which a schedule fires, as offsets from the cycle's first day (see {@link DaySets}).
   *
   * @param s the schedule
   * @return the firing days
   */
  static BitSet firingDays(CronSchedule s) {
    return new DaySets().of(s);
  }

  /** Whether the cron engine fires a cron whose day of month and day of week are both restricted on either. */
  private static final boolean EITHER_DAY_FIELD =
      CronSchedule.parse("0 0 1 * 1").firesAt(Instant.parse("2024-01-08T00:00:00Z")); // a Monday, not the 1st

  /**
   * The firing days of schedules, computed from the cron's date fields (day of month, month, day of week) with
   * the answers for each field text cached, so that a table of schedules costs a few dozen evaluations of the
   * cron engine per distinct field, whatever the number of firing days. A day fires when its month is one of
   * the month field's, and its day of month and day of week satisfy the day fields: both when one of them is
   * {@code *}, either when both are restricted (as the engine does, which {@link #EITHER_DAY_FIELD} asks it).
   * A day field holding {@code *} in a longer text (such as a step {@code *}{@code /2}) is evaluated on a
   * representative date of each (day of month, day of week) pair instead; a cron whose fields cannot be split
   * is walked day by day.
   */
  private static final class DaySets {
    private final Map<String, boolean[]> months = new HashMap<>();
    private final Map<String, boolean[]> daysOfMonth = new HashMap<>();
    private final Map<String, boolean[]> daysOfWeek = new HashMap<>();

    BitSet of(CronSchedule s) {
      BitSet out = new BitSet(CYCLE_DAYS);
      if (s.minutesOfDay().isEmpty()) {
        return out;
      }
      String[] f = s.expression().strip().split("\\s+", -1);
      try {
        if (f.length == 5 && plain(f[2]) && plain(f[4])) {
          boolean[] month = months.computeIfAbsent(f[3], m -> evaluate("0 0 1 " + m + " *", 13,
              i -> i == 0 ? null : LocalDate.of(2024, i, 1)));
          boolean[] dom = f[2].equals("*") ? null : daysOfMonth.computeIfAbsent(f[2],
              d -> evaluate("0 0 " + d + " 1 *", 32, i -> i == 0 ? null : LocalDate.of(2024, 1, i)));
          boolean[] dow = f[4].equals("*") ? null : daysOfWeek.computeIfAbsent(f[4],
              w -> evaluate("0 0 * * " + w, 7, i -> LocalDate.of(2024, 1, 1 + i))); // 2024-01-01 is a Monday
          boolean either = dom != null && dow != null && EITHER_DAY_FIELD;
          for (int i = 0; i < CYCLE_DAYS; i++) {
            boolean inDom = dom != null && dom[DAY_OF_MONTH[i]];
            boolean inDow = dow != null && dow[DAY_OF_WEEK[i]];
            boolean fires = either ? inDom || inDow : (dom == null || inDom) && (dow == null || inDow);
            if (month[MONTH[i]] && fires) {
              out.set(i);
            }
          }
          return out;
        }
        if (f.length == 5) {
          return byRepresentatives(f, out);
        }
      } catch (InvalidCronException e) {
        // fall through to the walk
      }
      LocalDate last = FIRST_DAY.plusDays(CYCLE_DAYS - 1L);
      for (Optional<LocalDate> d = s.nextFiringDay(FIRST_DAY); d.isPresent() && !d.get().isAfter(last);
          d = s.nextFiringDay(d.get().plusDays(1))) {
        out.set((int) ChronoUnit.DAYS.between(FIRST_DAY, d.get()));
      }
      return out;
    }

    /** A day field that is {@code *} or holds no {@code *} (numbers, names, ranges, lists). */
    private static boolean plain(String field) {
      return field.equals("*") || field.indexOf('*') < 0;
    }

    /** Whether {@code cron} fires at midnight of each date {@code date(i)}, {@code i < n} (null: no date). */
    private static boolean[] evaluate(String cron, int n, IntFunction<@Nullable LocalDate> date) {
      CronSchedule c = CronSchedule.parse(cron);
      boolean[] out = new boolean[n];
      for (int i = 0; i < n; i++) {
        LocalDate d = date.apply(i);
        out[i] = d != null && c.firesAt(d.atStartOfDay(ZoneOffset.UTC).toInstant());
      }
      return out;
    }

    /** The firing days from the month field and the day fields evaluated on one date per pair of them. */
    private static BitSet byRepresentatives(String[] f, BitSet out) {
      CronSchedule months = CronSchedule.parse("0 0 1 " + f[3] + " *");
      CronSchedule dates = CronSchedule.parse("0 0 " + f[2] + " * " + f[4]);
      boolean[] month = new boolean[13];
      for (int m = 1; m <= 12; m++) {
        month[m] = months.firesAt(LocalDate.of(2024, m, 1).atStartOfDay(ZoneOffset.UTC).toInstant());
      }
      boolean[][] date = new boolean[32][7];
      for (int d = 1; d <= 31; d++) {
        for (int w = 0; w < 7; w++) {
          date[d][w] = dates.firesAt(REPRESENTATIVE[d][w].atStartOfDay(ZoneOffset.UTC).toInstant());
        }
      }
      LocalDate day = FIRST_DAY;
      for (int i = 0; i < CYCLE_DAYS; i++, day = day.plusDays(1)) {
        if (month[day.getMonthValue()] && date[day.getDayOfMonth()][day.getDayOfWeek().getValue() - 1]) {
          out.set(i);
        }
      }
      return out;
    }
  }

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

package dev.cipolicy.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** The overlap check agrees with brute-force enumeration of firing minutes for random cron pairs. */
class ScheduleOverlapProperties {
  private static final Instant FROM = Instant.parse("2024-01-01T00:00:00Z");
  private static final Instant UNTIL = Instant.parse("2026-01-01T00:00:00Z");

  private static Gen<String> field(int min, int max) {
    Gen<String> single = integers().between(min, max).map((Integer i) -> String.valueOf(i));
    Gen<String> pair = integers().between(min, max).zip(integers().between(min, max),
        (a, b) -> a.equals(b) ? String.valueOf(a) : Math.min(a, b) + "," + Math.max(a, b));
    Gen<String> range = integers().between(min, max).zip(integers().between(min, max),
        (a, b) -> Math.min(a, b) + "-" + Math.max(a, b));
    return Generate.oneOf(single, pair, range);
  }

  /** Sparse crons (at most a few firings a day) so that brute force stays cheap. */
  private static Gen<String> cron() {
    Gen<String> minute = field(0, 3).mix(Generate.pick(List.of("0", "30", "0,30")), 50);
    Gen<String> hour = field(0, 3).mix(Generate.pick(List.of("15", "12", "*/8")), 50);
    Gen<String> dom = Generate.pick(List.of("*")).mix(field(1, 31), 40).mix(Generate.pick(List.of("29", "13", "1-7")), 20);
    Gen<String> month = Generate.pick(List.of("*")).mix(field(1, 12), 30);
    Gen<String> dow = Generate.pick(List.of("*")).mix(field(0, 6), 50).mix(Generate.pick(List.of("1-5", "6", "0", "5")), 30);
    return minute.zip(hour, dom, month, (m, h, d, mo) -> m + " " + h + " " + d + " " + mo)
        .zip(dow, (prefix, w) -> prefix + " " + w);
  }

  private static Optional<Instant> bruteForce(CronSchedule a, CronSchedule b) {
    Set<Instant> firingsA = new HashSet<>();
    Instant t = FROM.minusSeconds(60);
    while (true) {
      Optional<Instant> next = a.nextFiringAfter(t);
      if (next.isEmpty() || !next.get().isBefore(UNTIL)) {
        break;
      }
      firingsA.add(next.get());
      t = next.get();
    }
    t = FROM.minusSeconds(60);
    while (true) {
      Optional<Instant> next = b.nextFiringAfter(t);
      if (next.isEmpty() || !next.get().isBefore(UNTIL)) {
        return Optional.empty();
      }
      if (firingsA.contains(next.get())) {
        return next;
      }
      t = next.get();
    }
  }

  @Test
  void agreesWithBruteForceEnumeration() {
    qt().withExamples(150).forAll(cron(), cron()).checkAssert((x, y) -> {
      CronSchedule a = CronSchedule.parse(x);
      CronSchedule b = CronSchedule.parse(y);
      Optional<Instant> expected = bruteForce(a, b);
      assertThat(ScheduleOverlaps.firstSharedInstant(a, b, FROM, UNTIL)).as("%s vs %s", x, y).isEqualTo(expected);
      assertThat(ScheduleOverlaps.firstSharedInstant(b, a, FROM, UNTIL)).as("%s vs %s", y, x).isEqualTo(expected);
    });
  }

  @Test
  void aCronAlwaysOverlapsItselfAtItsFirstFiring() {
    qt().withExamples(100).forAll(cron()).checkAssert(x -> {
      CronSchedule a = CronSchedule.parse(x);
      Optional<Instant> first = a.nextFiringAfter(FROM.minusSeconds(60)).filter(i -> i.isBefore(UNTIL));
      assertThat(ScheduleOverlaps.firstSharedInstant(a, CronSchedule.parse(x), FROM, UNTIL)).isEqualTo(first);
    });
  }

  @Test
  void theWholeTableProofAgreesWithThePairwiseSearch() {
    qt().withExamples(60).forAll(cron(), cron(), cron(), cron()).checkAssert((a, b, c, d) -> {
      List<CronSchedule> table = List.of(CronSchedule.parse(a), CronSchedule.parse(b), CronSchedule.parse(c),
          CronSchedule.parse(d));
      List<ScheduleOverlaps.Overlap> expected = new ArrayList<>();
      for (int x = 0; x < table.size(); x++) {
        for (int y = x + 1; y < table.size(); y++) {
          int first = x;
          int second = y;
          ScheduleOverlaps.firstSharedInstant(table.get(x), table.get(y))
              .ifPresent(at -> expected.add(new ScheduleOverlaps.Overlap(first, second, at)));
        }
      }
      ScheduleOverlaps.Proof proof = ScheduleOverlaps.prove(table);
      assertThat(proof.overlaps()).as("%s", table).isEqualTo(expected);
      assertThat(proof.pairsCompared()).as("only overlapping pairs are compared").isEqualTo(expected.size());
    });
  }

  @Test
  void theFiringDaysFromTheDateFieldsAreTheDaysTheCronFiresOn() {
    qt().withExamples(40).forAll(cron()).checkAssert(c -> {
      CronSchedule s = CronSchedule.parse(c);
      BitSet walked = new BitSet();
      LocalDate first = LocalDate.of(2024, 1, 1);
      LocalDate last = LocalDate.of(2051, 12, 31);
      for (Optional<LocalDate> d = s.nextFiringDay(first); d.isPresent() && !d.get().isAfter(last);
          d = s.nextFiringDay(d.get().plusDays(1))) {
        walked.set((int) ChronoUnit.DAYS.between(first, d.get()));
      }
      assertThat(ScheduleOverlaps.firingDays(s)).as(c).isEqualTo(walked);
    });
  }
}

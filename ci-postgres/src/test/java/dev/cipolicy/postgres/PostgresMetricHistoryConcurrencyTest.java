package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RevocationResult;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the compatibility kit cannot see: several writers at once, two store instances (two pools, as two
 * processes would have) revoking the same runs at once, a level shift racing a revocation, and the read's use
 * of the newest-trusted index on a table with enough rows.
 */
class PostgresMetricHistoryConcurrencyTest {

  private static final SeriesKey A = new SeriesKey("tests/e2e/test_a.py", "cuda", "stage-c-4-gpu-h200");
  private static final Instant T0 = Instant.parse("2026-11-01T15:00:00Z");

  private static @Nullable PgTestDatabase db;
  private static @Nullable HikariDataSource second;
  private PostgresMetricHistoryStore one;
  private PostgresMetricHistoryStore two;

  @BeforeEach
  void setUp() {
    if (db == null) {
      db = PgTestDatabase.open("gateconc", 8);
      PostgresMetricHistoryStore.create(db.dataSource, db.schema);
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(db.url);
      config.setUsername(db.user);
      config.setMaximumPoolSize(4);
      config.setPoolName("second-" + db.schema);
      second = new HikariDataSource(config);
    } else {
      PgHistoryTables.truncate(db);
    }
    one = PostgresMetricHistoryStore.attach(db.dataSource, db.schema);
    two = PostgresMetricHistoryStore.attach(second, db.schema);
  }

  @AfterAll
  static void close() {
    if (second != null) {
      second.close();
      second = null;
    }
    if (db != null) {
      db.close();
      db = null;
    }
  }

  private static Coordinate coordinate(int i) {
    return new Coordinate("m" + (i % 4), "all", "{\"rel_up\":0.5}", i);
  }

  private static <T> List<T> inParallel(List<Callable<T>> tasks) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> t : tasks) {
        futures.add(pool.submit(t));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentWritersOfOverlappingNewCoordinatesAllSucceedOnce() throws Exception {
    int writers = 6;
    int runsEach = 20;
    CyclicBarrier start = new CyclicBarrier(writers);
    List<Callable<List<RunRecord>>> tasks = new ArrayList<>();
    Map<RunId, RunRecord> written = Collections.synchronizedMap(new HashMap<>());
    for (int w = 0; w < writers; w++) {
      int writer = w;
      tasks.add(() -> {
        Random random = new Random(writer);
        PostgresMetricHistoryStore store = writer % 2 == 0 ? one : two;
        List<RunRecord> mine = new ArrayList<>();
        start.await();
        for (int r = 0; r < runsEach; r++) {
          List<Integer> coords = new ArrayList<>();
          for (int i = 0; i < 24; i++) {
            if (random.nextInt(3) > 0) {
              coords.add(i);
            }
          }
          Collections.shuffle(coords, random); // different orders provoke lock-order conflicts
          List<Sample> samples = new ArrayList<>();
          for (int i : coords) {
            samples.add(new Sample(coordinate(i), writer * 1000 + r + i / 100.0, random.nextBoolean()));
          }
          RunRecord run = new RunRecord(A, Provenance.of("ci" + writer, "c" + r, "nightly"),
              T0.plusSeconds(random.nextInt(600)), true, samples);
          written.put(store.write(run).runId(), run);
          mine.add(run);
        }
        return mine;
      });
    }
    inParallel(tasks);
    assertThat(written).hasSize(writers * runsEach);
    Set<Coordinate> used = new HashSet<>();
    written.values().forEach(r -> r.samples().forEach(s -> used.add(s.coordinate())));
    List<Coordinate> listed = one.coordinates(A);
    assertThat(listed).doesNotHaveDuplicates();
    assertThat(new HashSet<>(listed)).isEqualTo(used);
    for (Coordinate c : used) {
      List<HistorySample> history = two.history(A, c);
      long expected = written.values().stream().filter(r -> r.samples().stream().anyMatch(s -> s.coordinate()
          .equals(c))).count();
      assertThat(history).as("history of %s", c).hasSize((int) expected);
      for (HistorySample h : history) {
        Sample s = written.get(h.runId()).samples().stream().filter(x -> x.coordinate().equals(c)).findFirst()
            .orElseThrow();
        assertThat(h.value()).isEqualTo(s.value());
        assertThat(h.trusted()).isEqualTo(s.trusted());
        assertThat(h.createdAt()).isEqualTo(written.get(h.runId()).createdAt());
      }
    }
  }

  @Test
  void twoStoreInstancesRevokingTheSameRunsAtOnceCountEachRunOnce() throws Exception {
    for (int round = 0; round < 15; round++) {
      String commit = "commit" + round;
      int trusted = 0;
      for (int i = 0; i < 3; i++) {
        one.write(new RunRecord(A, Provenance.of("ci" + round, commit, "nightly"), T0.plusSeconds(60L * round + i),
            true, List.of(new Sample(coordinate(0), 1.0, true), new Sample(coordinate(1), 1.0, i != 1))));
        trusted += i != 1 ? 2 : 1;
      }
      CyclicBarrier start = new CyclicBarrier(2);
      Revocation revocation = round % 2 == 0 ? new Revocation.ByCommit(commit) : new Revocation.ByCiRunId("ci" + round);
      List<RevocationResult> results = inParallel(List.of(
          () -> {
            start.await();
            return one.revoke(revocation);
          },
          () -> {
            start.await();
            return two.revoke(revocation);
          }));
      assertThat(results).allSatisfy(r -> assertThat(r.runsMatched()).isEqualTo(3));
      assertThat(results.get(0).runsRevoked() + results.get(1).runsRevoked()).as("round %d", round).isEqualTo(3);
      assertThat(results.get(0).samplesUntrusted() + results.get(1).samplesUntrusted()).isEqualTo(trusted);
      assertThat(two.revoke(revocation)).isEqualTo(new RevocationResult(3, 0, 0));
    }
    assertThat(one.history(A, coordinate(0))).isEmpty();
  }

  @Test
  void aLevelShiftRacingARevocationEitherSeesTheRevocationOrPrecedesIt() throws Exception {
    Coordinate c = coordinate(0);
    for (int round = 0; round < 10; round++) {
      PgHistoryTables.truncate(db);
      one.write(new RunRecord(A, Provenance.none(), T0, true, List.of(new Sample(c, 1.0, true))));
      RunId s1 = one.write(new RunRecord(A, Provenance.none(), T0.plusSeconds(60), false,
          List.of(new Sample(c, 2.0, false)))).runId();
      RunId s2 = one.write(new RunRecord(A, Provenance.none(), T0.plusSeconds(120), false,
          List.of(new Sample(c, 2.1, false)))).runId();
      CyclicBarrier start = new CyclicBarrier(2);
      List<Object> results = inParallel(List.of(
          () -> {
            start.await();
            try {
              return one.acceptLevelShift(A, c, List.of(s1, s2));
            } catch (InvalidInputException e) {
              return e.getMessage();
            }
          },
          () -> {
            start.await();
            return two.revoke(new Revocation.ByRunId(s1));
          }));
      List<HistorySample> trusted = one.read(A, Set.of(c), 20, 20).get(c).trusted();
      if (results.get(0) instanceof Integer accepted) {
        // accepted first: s1 became trusted, then left with its revoked run; the level starts at s1
        assertThat(accepted).isEqualTo(2);
        assertThat(results.get(1)).isEqualTo(new RevocationResult(1, 1, 1));
        assertThat(trusted).extracting(HistorySample::value).containsExactly(2.1);
      } else {
        assertThat(results.get(0)).isEqualTo("run " + s1 + " is revoked; a revoked run cannot make a new level");
        assertThat(results.get(1)).isEqualTo(new RevocationResult(1, 1, 0));
        assertThat(trusted).extracting(HistorySample::value).containsExactly(1.0); // nothing changed
      }
    }
  }

  @Test
  void readingTheNewestTrustedValuesScansTheIndexBackwardAndStopsAtTheLimit() {
    int coordinates = 200;
    List<Coordinate> all = new ArrayList<>();
    for (int i = 0; i < coordinates; i++) {
      all.add(coordinate(i));
    }
    for (int r = 0; r < 100; r++) {
      List<Sample> samples = new ArrayList<>();
      for (int i = 0; i < coordinates; i++) {
        samples.add(new Sample(all.get(i), r + i, (r + i) % 5 != 0));
      }
      one.write(new RunRecord(A, Provenance.none(), T0.plusSeconds(60L * r), true, samples));
    }
    db.exec("ANALYZE " + db.schema + ".gate_values");
    db.exec("ANALYZE " + db.schema + ".gate_coordinates");
    String plan = one.explainRead(A, all.subList(0, 20), 20, 3);
    assertThat(plan).as(plan).containsPattern("Index (Only )?Scan Backward using gate_values_newest_trusted")
        .containsPattern("Index (Only )?Scan Backward using gate_values_newest ")
        .doesNotContain("Seq Scan on gate_values");
    // and the answer is right: the newest 20 trusted of 100 values (run r writes r + 7 here), 1 in 5 untrusted
    List<HistorySample> trusted = one.read(A, Set.of(all.get(7)), 20, 3).get(all.get(7)).trusted();
    assertThat(trusted).hasSize(20).extracting(HistorySample::value).doesNotContain(105.0, 100.0)
        .startsWith(106.0, 104.0, 103.0, 102.0, 101.0, 99.0);
  }
}

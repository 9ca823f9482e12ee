package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.CoordinateHistory;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.MetricStoreException;
import dev.cipolicy.gate.MetricStoreUnavailableException;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.Revocation;
import dev.cipolicy.gate.RevocationResult;
import dev.cipolicy.gate.RunId;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What only the PostgreSQL metric history store has: migrations beside the queue's, exact round trips of
 * values and times, atomic writes under an injected failure, database failures and hand-edited rows as
 * {@link MetricStoreException}s, input PostgreSQL cannot store.
 */
class PostgresMetricHistoryStoreTest {

  private static final SeriesKey A = new SeriesKey("tests/e2e/test_a.py", "cuda", "stage-c-4-gpu-h200");
  private static final Coordinate X = new Coordinate("train/grad_norm", "all", "{\"rel_up\":0.5}", 0);
  private static final Coordinate Y = new Coordinate("rollout/raw_reward", "last", "{\"rel_up\":0.5}", -1);
  private static final Instant T0 = Instant.parse("2026-11-01T15:00:00Z");

  private static @Nullable PgTestDatabase db;
  private PostgresMetricHistoryStore store;

  @BeforeEach
  void setUp() {
    if (db == null) {
      db = PgTestDatabase.open("gatestore", 4);
      store = PostgresMetricHistoryStore.create(db.dataSource, db.schema);
    } else {
      PgHistoryTables.truncate(db);
      store = PostgresMetricHistoryStore.attach(db.dataSource, db.schema);
    }
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  private static RunRecord run(Instant at, Sample... samples) {
    return new RunRecord(A, Provenance.of("ci1", "abc", "nightly"), at, true, List.of(samples));
  }

  private long count(String table) {
    try (Connection c = db.dataSource.getConnection();
        PreparedStatement st = c.prepareStatement("SELECT count(*) FROM " + db.schema + "." + table);
        ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void historyMigrationsAreIdempotentAndVersionedApartFromTheQueues() {
    assertThat(PostgresHistoryMigrations.migrate(db.dataSource, db.schema))
        .isEqualTo(PostgresHistoryMigrations.latestVersion());
    // the queue's migrations share the schema without touching the history's version table, and back
    PostgresMigrations.migrate(db.dataSource, db.schema);
    assertThat(PostgresHistoryMigrations.migrate(db.dataSource, db.schema))
        .isEqualTo(PostgresHistoryMigrations.latestVersion());
    assertThat(count("gate_schema_version")).isEqualTo(PostgresHistoryMigrations.latestVersion());
    assertThat(count("queue_schema_version")).isEqualTo(PostgresMigrations.latestVersion());
  }

  @Test
  void bothMigrationSetsRunConcurrentlyOnAFreshSchemaFromSeveralThreads() throws Exception {
    String fresh = db.schema + "_fresh";
    try {
      List<Thread> threads = new ArrayList<>();
      List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int i = 0; i < 6; i++) {
        boolean history = i % 2 == 0;
        threads.add(new Thread(() -> {
          try {
            if (history) {
              PostgresMetricHistoryStore.create(db.dataSource, fresh);
            } else {
              PostgresMigrations.migrate(db.dataSource, fresh);
            }
          } catch (Throwable t) {
            failures.add(t);
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertThat(failures).isEmpty();
      PostgresMetricHistoryStore s = PostgresMetricHistoryStore.attach(db.dataSource, fresh);
      RunId id = s.write(run(T0, new Sample(X, 1.0, true))).runId();
      assertThat(s.history(A, X)).extracting(HistorySample::runId).containsExactly(id);
    } finally {
      db.exec("DROP SCHEMA IF EXISTS " + fresh + " CASCADE");
    }
  }

  @Test
  void schemaNamesMustBePlainIdentifiers() {
    assertThatThrownBy(() -> PostgresMetricHistoryStore.create(db.dataSource, "x\"; DROP TABLE y; --"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("schema name 'x\"; DROP TABLE y; --' is not a plain PostgreSQL identifier (expected"
            + " [a-z_][a-z0-9_]{0,62})");
    assertThatThrownBy(() -> PostgresMetricHistoryStore.attach(db.dataSource, "Upper"))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void valuesAndTimesComeBackExactly() {
    double[] values = {-0.0, 0.0, Double.MIN_VALUE, -Double.MAX_VALUE, Double.MAX_VALUE, 0.1 + 0.2, Math.PI, 1e-300,
        -123456.789e-7};
    Instant[] times = {PostgresMetricHistoryStore.MIN_TIME, T0.plusNanos(1), T0.plusNanos(999), T0.plusNanos(1000),
        T0.plusNanos(123_456_789), Instant.parse("1969-12-31T23:59:59.999999999Z"), T0.plusNanos(1),
        Instant.parse("2000-02-29T00:00:00.5Z"), PostgresMetricHistoryStore.MAX_TIME};
    List<HistorySample> written = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      RunId id = store.write(run(times[i], new Sample(X, values[i], i % 2 == 0))).runId();
      written.add(new HistorySample(id, times[i], values[i], i % 2 == 0));
    }
    List<HistorySample> expected = new ArrayList<>(written);
    expected.sort((a, b) -> a.createdAt().equals(b.createdAt())
        ? Long.compare(a.runId().value(), b.runId().value()) : a.createdAt().compareTo(b.createdAt()));
    assertThat(store.history(A, X)).isEqualTo(expected); // record equality compares doubles bit for bit
  }

  @Test
  void subMicrosecondTimesOrderTheHistory() {
    store.write(run(T0.plusNanos(2), new Sample(X, 2.0, true)));
    store.write(run(T0.plusNanos(1), new Sample(X, 1.0, true)));
    store.write(run(T0.plusNanos(3), new Sample(X, 3.0, true)));
    assertThat(store.read(A, Set.of(X), 20, 20).get(X).trusted()).extracting(HistorySample::value)
        .containsExactly(3.0, 2.0, 1.0);
  }

  @Test
  void timesOutsideTheStoredRangeAreRefusedBeforeAnythingIsWritten() {
    assertThatThrownBy(() -> store.write(run(Instant.parse("-0001-12-31T23:59:59Z"), new Sample(X, 1.0, true))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("the time -0001-12-31T23:59:59Z of a run of tests/e2e/test_a.py (cuda/stage-c-4-gpu-h200) is"
            + " outside the range the PostgreSQL store keeps (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z)");
    assertThatThrownBy(() -> store.write(run(Instant.MAX, new Sample(X, 1.0, true))))
        .isInstanceOf(InvalidInputException.class);
    assertThat(count("gate_runs")).isZero();
    assertThat(count("gate_series")).isZero();
  }

  @Test
  void stringsPostgresCannotStoreAreRefusedAndFindNothing() {
    SeriesKey nul = new SeriesKey("tests/a\0.py", "cuda", "s");
    assertThatThrownBy(() -> store.write(new RunRecord(nul, Provenance.none(), T0, true, List.of())))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("must not contain a NUL character");
    Coordinate surrogate = new Coordinate("m\uD800", "all", "{}", 0);
    assertThatThrownBy(() -> store.write(run(T0, new Sample(X, 1.0, true), new Sample(surrogate, 1.0, true))))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("unpaired surrogate");
    assertThatThrownBy(() -> store.write(new RunRecord(A, Provenance.of("ci\0", "c", "nightly"), T0, true,
        List.of()))).isInstanceOf(InvalidInputException.class).hasMessageContaining("provenance");
    assertThat(count("gate_runs")).isZero();
    assertThat(count("gate_coordinates")).isZero();

    store.write(run(T0, new Sample(X, 1.0, true)));
    assertThat(store.read(nul, Set.of(X), 20, 20)).isEmpty();
    assertThat(store.read(A, Set.of(X, surrogate), 20, 20)).containsOnlyKeys(X);
    assertThat(store.history(A, surrogate)).isEmpty();
    assertThat(store.coordinates(nul)).isEmpty();
    assertThat(store.revoke(new Revocation.ByCommit("abc\0"))).isEqualTo(new RevocationResult(0, 0, 0));
    // a well-formed surrogate pair is stored and read back
    Coordinate emoji = new Coordinate("loss \uD83D\uDE00", "all", "{}", 0);
    store.write(run(T0.plusSeconds(1), new Sample(emoji, 2.0, true)));
    assertThat(store.coordinates(A)).containsExactly(X, emoji);
  }

  @Test
  void aWriteThatFailsMidwayLeavesNothingAndTheStoreGoesOn() {
    DataSource failing = PgTestDatabase.failingOn(db.dataSource, "INSERT INTO \"" + db.schema + "\".gate_values");
    PostgresMetricHistoryStore broken = PostgresMetricHistoryStore.attach(failing, db.schema);
    assertThatThrownBy(() -> broken.write(run(T0, new Sample(X, 1.0, true), new Sample(Y, 2.0, true))))
        .isInstanceOf(MetricStoreException.class)
        .hasMessageStartingWith("could not write a run of tests/e2e/test_a.py (cuda/stage-c-4-gpu-h200) in schema "
            + db.schema + " (SQLSTATE 58000): injected failure");
    assertThat(count("gate_series")).isZero();
    assertThat(count("gate_coordinates")).isZero();
    assertThat(count("gate_runs")).isZero();
    assertThat(count("gate_values")).isZero();
    RunId id = store.write(run(T0, new Sample(X, 1.0, true), new Sample(Y, 2.0, true))).runId();
    assertThat(store.coordinates(A)).containsExactly(X, Y);
    assertThat(store.history(A, Y)).containsExactly(new HistorySample(id, T0, 2.0, true));
  }

  @Test
  void anUnreachableDatabaseIsAMetricStoreUnavailableExceptionSayingSo() {
    DataSource nowhere = PgTestDatabase.closedPort();
    assertThatThrownBy(() -> PostgresMetricHistoryStore.create(nowhere, "ci_gate"))
        .isInstanceOf(MetricStoreUnavailableException.class)
        .hasMessageStartingWith("could not migrate the metric history in schema ci_gate (SQLSTATE 08001)");
    PostgresMetricHistoryStore s = PostgresMetricHistoryStore.attach(nowhere, "ci_gate");
    assertThatThrownBy(() -> s.read(A, Set.of(X), 20, 20)).isInstanceOf(MetricStoreUnavailableException.class)
        .hasMessageStartingWith("could not read the history of tests/e2e/test_a.py (cuda/stage-c-4-gpu-h200) in"
            + " schema ci_gate (SQLSTATE 08001)")
        .hasMessageEndingWith("(the database cannot be reached)");
    assertThatThrownBy(() -> s.revoke(new Revocation.ByCommit("abc")))
        .isInstanceOf(MetricStoreUnavailableException.class);
  }

  @Test
  void aSchemaThatWasNeverMigratedIsNamedWithTheFix() {
    PostgresMetricHistoryStore s = PostgresMetricHistoryStore.attach(db.dataSource, db.schema + "_none");
    assertThatThrownBy(() -> s.coordinates(A)).isInstanceOf(MetricStoreException.class)
        .hasMessageContaining("(SQLSTATE 42P01)")
        .hasMessageEndingWith("(is the schema migrated? PostgresMetricHistoryStore.create migrates it)");
  }

  @Test
  void rowsEditedIntoImpossibleStatesAreReportedByName() {
    RunId id = store.write(run(T0, new Sample(X, 1.0, true))).runId();
    db.exec("ALTER TABLE " + db.schema + ".gate_values DROP CONSTRAINT gate_values_value_check");
    db.exec("UPDATE " + db.schema + ".gate_values SET value = 'NaN'");
    assertThatThrownBy(() -> store.read(A, Set.of(X), 20, 20)).isInstanceOf(MetricStoreException.class)
        .hasMessageStartingWith("row " + db.schema + ".gate_values (run_id = " + id + ", " + X + ") is impossible"
            + " (edited by hand?): a history sample needs");
    db.exec("ALTER TABLE " + db.schema + ".gate_values DROP CONSTRAINT gate_values_created_nano_check");
    db.exec("UPDATE " + db.schema + ".gate_values SET value = 1, created_nano = 1000000000");
    assertThatThrownBy(() -> store.history(A, X)).isInstanceOf(MetricStoreException.class)
        .hasMessageContaining("created_nano 1000000000 is not a nano-of-second");
    db.exec("UPDATE " + db.schema + ".gate_runs SET created_nano = 5000");
    assertThatThrownBy(() -> store.acceptLevelShift(A, X, List.of(id))).isInstanceOf(MetricStoreException.class)
        .hasMessageStartingWith("row " + db.schema + ".gate_runs (id = " + id + ") is impossible (edited by hand?):"
            + " created_at 2026-11-01T15:00Z and created_nano 5000 disagree");
    db.exec("ALTER TABLE " + db.schema + ".gate_coordinates DROP CONSTRAINT gate_coordinates_step_check");
    db.exec("UPDATE " + db.schema + ".gate_coordinates SET step = -7");
    assertThatThrownBy(() -> store.coordinates(A)).isInstanceOf(MetricStoreException.class)
        .hasMessageStartingWith("row " + db.schema + ".gate_coordinates (id = 1) is impossible (edited by hand?):");
    // restore the schema for the other tests of this class
    db.exec("DROP SCHEMA " + db.schema + " CASCADE");
    PostgresMetricHistoryStore.create(db.dataSource, db.schema);
  }

  @Test
  void nullArgumentsAreInvalidInputNotNullPointers() {
    assertThatThrownBy(() -> store.write(null)).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> store.read(null, Set.of(X), 1, 1)).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> store.acceptLevelShift(A, X, java.util.Arrays.asList((RunId) null)))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> store.revoke(null)).isInstanceOf(InvalidInputException.class);
  }

  @Test
  void limitsOfZeroStillReportACoordinateWithVisibleValues() {
    store.write(run(T0, new Sample(X, 1.0, false)));
    Map<Coordinate, CoordinateHistory> h = store.read(A, Set.of(X, Y), 0, 0);
    assertThat(h).containsExactly(Map.entry(X, CoordinateHistory.EMPTY));
    assertThat(store.read(A, Set.of(X), -1, -5)).containsOnlyKeys(X);
  }
}

package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.gate.CiRunIdentity;
import dev.cipolicy.gate.Coordinate;
import dev.cipolicy.gate.HistorySample;
import dev.cipolicy.gate.MetricStoreUnavailableException;
import dev.cipolicy.gate.Provenance;
import dev.cipolicy.gate.RunRecord;
import dev.cipolicy.gate.Sample;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.gate.WriteResult;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Idempotent baseline writes on the real server: a write whose commit landed but whose acknowledgement was lost,
 * retried, stores exactly one run; concurrent writes of one CI run store one run.
 */
class PostgresIdempotentWriteTest {
  private static final SeriesKey A = new SeriesKey("tests/e2e/test_a.py", "cuda", "stage-c-4-gpu-h200");
  private static final Coordinate X = new Coordinate("train/grad_norm", "all", "{\"rel_up\":0.5}", 0);
  private static final Instant T0 = Instant.parse("2026-11-01T15:00:00Z");
  private static final CiRunIdentity RUN = CiRunIdentity.of("acme/train", "7001", 1);

  private static @Nullable PgTestDatabase db;

  @BeforeEach
  void setUp() {
    if (db == null) {
      db = PgTestDatabase.open("gateidem", 8);
      PostgresMetricHistoryStore.create(db.dataSource, db.schema);
    } else {
      PgHistoryTables.truncate(db);
    }
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  private static RunRecord run(double value) {
    return new RunRecord(A, Provenance.of(RUN, "abc", "nightly"), T0, true, List.of(new Sample(X, value, true)));
  }

  private static long runs() throws SQLException {
    try (Connection c = db().dataSource.getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM " + db().schema + ".gate_runs")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static PgTestDatabase db() {
    return java.util.Objects.requireNonNull(db);
  }

  @Test
  void aWriteWhoseAcknowledgementIsLostAfterTheCommitIsRetriedIntoExactlyOneRun() throws Exception {
    PostgresMetricHistoryStore lossy = PostgresMetricHistoryStore.attach(new AckLosingDataSource(db().dataSource),
        db().schema);
    assertThatThrownBy(() -> lossy.write(run(1.0)))
        .isInstanceOfSatisfying(MetricStoreUnavailableException.class,
            e -> assertThat(e.mayHaveCommitted()).isTrue());
    assertThat(runs()).isEqualTo(1); // the commit landed

    PostgresMetricHistoryStore store = PostgresMetricHistoryStore.attach(db().dataSource, db().schema);
    WriteResult retry = store.write(run(1.0)); // what a client does after "may have committed"
    assertThat(retry.duplicate()).isTrue();
    assertThat(retry.duplicateOf()).hasValue(RUN);
    WriteResult again = store.write(run(1.0));
    assertThat(again).isEqualTo(retry);
    assertThat(runs()).isEqualTo(1);
    assertThat(store.history(A, X)).extracting(HistorySample::runId).containsExactly(retry.runId());
  }

  @Test
  void concurrentWritesOfOneCiRunStoreOneRun() throws Exception {
    PostgresMetricHistoryStore store = PostgresMetricHistoryStore.attach(db().dataSource, db().schema);
    int writers = 6;
    CyclicBarrier start = new CyclicBarrier(writers);
    List<Callable<WriteResult>> tasks = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      int attempt = 1 + i % 2;
      tasks.add(() -> {
        start.await(10, TimeUnit.SECONDS);
        return store.write(new RunRecord(A, Provenance.of(CiRunIdentity.of("acme/train", "7001", attempt), "abc",
            "nightly"), T0, true, List.of(new Sample(X, attempt, true))));
      });
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<WriteResult> results = new ArrayList<>();
    try {
      for (Future<WriteResult> f : pool.invokeAll(tasks)) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(results.stream().filter(r -> !r.duplicate())).hasSize(1);
    assertThat(results).extracting(WriteResult::runId).containsOnly(results.get(0).runId());
    assertThat(runs()).isEqualTo(1);
  }

  @Test
  void theUniqueIndexHoldsEvenForRowsWrittenBehindTheStoresBack() {
    PostgresMetricHistoryStore.attach(db().dataSource, db().schema).write(run(1.0));
    assertThatThrownBy(() -> db().exec("INSERT INTO " + db().schema + ".gate_runs (series_id, ci_run_id,"
        + " ci_repository, ci_attempt, created_at, created_nano, trusted) SELECT series_id, ci_run_id,"
        + " ci_repository, 2, created_at, created_nano, trusted FROM " + db().schema + ".gate_runs"))
        .hasMessageContaining("gate_runs_ci_identity");
  }

  /** A data source whose connections commit for real and then report the connection lost, as a network would. */
  private static final class AckLosingDataSource implements DataSource {
    private final DataSource real;

    AckLosingDataSource(DataSource real) {
      this.real = real;
    }

    @Override
    public Connection getConnection() throws SQLException {
      return wrap(real.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return wrap(real.getConnection(user, password));
    }

    private static Connection wrap(Connection c) {
      return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
          (proxy, method, args) -> {
            try {
              Object result = method.invoke(c, args);
              if (method.getName().equals("commit")) {
                throw new SQLException("An I/O error occurred while sending to the backend (test: the commit"
                    + " landed, its acknowledgement was lost)", "08006");
              }
              return result;
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return real.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      real.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      real.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return real.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return real.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return real.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return real.isWrapperFor(iface);
    }
  }
}

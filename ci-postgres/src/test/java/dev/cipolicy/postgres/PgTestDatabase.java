package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL server of the tests: the URL from {@code CI_POLICY_PG_URL} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test}, user {@code postgres}), a pool on it, and one fresh schema
 * per test class that {@link #close()} drops. When the server is unreachable the tests are skipped, or fail
 * when {@code CI_POLICY_PG_REQUIRED=true} (as in {@code .ci/run}).
 */
final class PgTestDatabase implements AutoCloseable {

  static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test";

  final String url;
  final String user;
  final String schema;
  final HikariDataSource dataSource;

  private PgTestDatabase(String url, String user, String schema, int poolSize) {
    this.url = url;
    this.user = user;
    this.schema = schema;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("test-" + schema);
    this.dataSource = new HikariDataSource(config);
  }

  /**
   * The connection arguments a {@code QueueWorkerMain} process needs to reach this database, in a
   * mutable map to which a test adds its own settings.
   */
  java.util.Map<String, String> workerArgs() {
    java.util.Map<String, String> args = new java.util.LinkedHashMap<>();
    args.put("url", url);
    args.put("user", user);
    args.put("schema", schema);
    return args;
  }

  static String url() {
    String url = System.getenv("CI_POLICY_PG_URL");
    return url == null || url.isBlank() ? DEFAULT_URL : url;
  }

  static String user() {
    String user = System.getenv("CI_POLICY_PG_USER");
    return user == null || user.isBlank() ? "postgres" : user;
  }

  /**
   * Connects, or skips (fails when required) with the reason; then creates a fresh schema.
   *
   * @param prefix the schema name prefix, e.g. the test class
   * @param poolSize the pool size
   * @return the database
   */
  static PgTestDatabase open(String prefix, int poolSize) {
    String url = url();
    String user = user();
    try (Connection c = DriverManager.getConnection(url, user, null)) {
      c.isValid(2);
    } catch (SQLException e) {
      String reason = "PostgreSQL is unreachable at " + url + " as " + user + " (" + e.getMessage()
          + "); set CI_POLICY_PG_URL, or start the server (.ci/run starts it)";
      if ("true".equalsIgnoreCase(System.getenv("CI_POLICY_PG_REQUIRED"))) {
        fail("CI_POLICY_PG_REQUIRED=true but " + reason);
      }
      Assumptions.abort(reason);
    }
    String schema = (prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12))
        .toLowerCase(Locale.ROOT);
    return new PgTestDatabase(url, user, schema, poolSize);
  }

  /** Empties every queue table and restarts ids and tokens, as for a fresh store. */
  void truncate() {
    exec("TRUNCATE " + schema + ".queue_held_devices, " + schema + ".queue_collector_devices, " + schema
        + ".queue_gpu_queued, " + schema + ".queue_job_logs, " + schema + ".queue_job_attempts, " + schema + ".queue_results, " + schema + ".queue_queued, " + schema + ".queue_leases, "
        + schema + ".queue_jobs, " + schema + ".queue_requests, " + schema
        + ".queue_collectors, " + schema + ".queue_fleet_shares, " + schema + ".queue_reservations, " + schema
        + ".queue_paused_pools, " + schema + ".queue_operator_actions RESTART IDENTITY; ALTER SEQUENCE " + schema
        + ".queue_lease_tokens RESTART");
  }

  void exec(String sql) {
    try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
      st.execute();
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** The first column of every row of a query, as text. */
  List<String> strings(String sql) {
    return column(sql, rs -> rs.getString(1));
  }

  /** The first column of every row of a query, as numbers. */
  List<Long> longs(String sql) {
    return column(sql, rs -> rs.getLong(1));
  }

  /**
   * When the live lease of a job runs out, on the store's clock (its {@code queue_leases} row). The fault tests
   * compare it with the attempt that took the job over ({@code QueueStore.attempts}, also the store's clock), so
   * a slow test machine cannot make the order look wrong.
   */
  Instant leaseExpiry(JobId job) {
    List<Instant> expiry = column("SELECT expires_at FROM " + schema + ".queue_leases WHERE job_id = " + job.value(),
        rs -> rs.getTimestamp(1).toInstant());
    assertThat(expiry).as("the lease row of job %d", job.value()).hasSize(1);
    return expiry.get(0);
  }

  /** The single number a query returns, e.g. a count. */
  long count(String sql) {
    List<Long> values = longs(sql);
    assertThat(values).as("rows of " + sql).hasSize(1);
    return values.get(0);
  }

  private <T> List<T> column(String sql, Column<T> read) {
    List<T> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(sql);
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(read.of(rs));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
    return out;
  }

  @FunctionalInterface
  private interface Column<T> {
    T of(ResultSet rs) throws SQLException;
  }

  @Override
  public void close() {
    try {
      exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } finally {
      dataSource.close();
    }
  }

  /**
   * A data source of a PostgreSQL server that does not exist: a local port that was free a moment ago (a
   * socket bound to it, then closed), so every connection attempt is refused at once.
   */
  static DataSource closedPort() {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free local port: " + e.getMessage(), e);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"127.0.0.1"});
    ds.setPortNumbers(new int[] {port});
    ds.setDatabaseName("test");
    ds.setUser("postgres");
    ds.setConnectTimeout(2);
    return ds;
  }

  /** A data source whose connections fail when a statement starting with {@code sqlPrefix} is prepared. */
  static DataSource failingOn(DataSource real, String sqlPrefix) {
    return wrapConnections(real, (c, m, a) -> {
      if (m.getName().equals("prepareStatement") && ((String) a[0]).startsWith(sqlPrefix)) {
        throw new SQLException("injected failure", "58000");
      }
      return invoke(c, m, a);
    });
  }

  /**
   * A data source whose connections lose their commit: the transaction is rolled back on the server, and
   * the commit fails with the SQLSTATE of a broken connection, as when the connection drops while the commit
   * is under way.
   */
  static DataSource commitFailsWith(DataSource real, String sqlState) {
    return wrapConnections(real, (c, m, a) -> {
      if (m.getName().equals("commit")) {
        c.rollback();
        throw new SQLException("connection reset during the commit", sqlState);
      }
      return invoke(c, m, a);
    });
  }

  /**
   * A data source whose connections pause once, inside the transaction, right after a statement containing
   * {@code sqlFragment} ran: the next statement prepared on that connection first runs {@code pause} (which
   * blocks, like a process stopped while it holds the locks the statement took). Only the first such
   * statement of the data source pauses.
   */
  static DataSource pausingAfter(DataSource real, String sqlFragment, Runnable pause) {
    java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger();
    return wrapConnections(real, (c, m, a) -> {
      if (m.getName().equals("prepareStatement")) {
        if (state.get() == 1 && state.compareAndSet(1, 2)) {
          pause.run();
        } else if (((String) a[0]).contains(sqlFragment)) {
          state.compareAndSet(0, 1);
        }
      }
      return invoke(c, m, a);
    });
  }

  /** What a wrapped connection does with each call. */
  @FunctionalInterface
  interface ConnectionCall {
    @Nullable Object handle(Connection real, Method method, Object @Nullable [] args) throws Throwable;
  }

  private static DataSource wrapConnections(DataSource real, ConnectionCall call) {
    InvocationHandler dataSource = (proxy, method, args) -> {
      Object result = invoke(real, method, args);
      if (method.getName().equals("getConnection")) {
        Connection c = (Connection) result;
        return Proxy.newProxyInstance(PgTestDatabase.class.getClassLoader(), new Class<?>[] {Connection.class},
            (p, m, a) -> call.handle(c, m, a));
      }
      return result;
    };
    return (DataSource) Proxy.newProxyInstance(PgTestDatabase.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, dataSource);
  }

  /** Calls a method reflectively, throwing what it throws. */
  static @Nullable Object invoke(Object target, Method method, Object @Nullable [] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Waits for an operation whose database connection the test terminated and returns the
   * {@link QueueStoreUnavailableException} it must have ended with.
   */
  static QueueStoreUnavailableException unavailableFrom(Future<?> running) throws Exception {
    try {
      Object result = running.get(20, TimeUnit.SECONDS);
      throw new AssertionError("the operation ended normally after its connection was terminated: " + result);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(QueueStoreUnavailableException.class);
      return (QueueStoreUnavailableException) e.getCause();
    }
  }
}

package dev.cipolicy.benchmarks.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server the benchmark runs on: connection settings, HikariCP pools, fresh scratch schemas, and the
 * server's own statistics ({@code pg_stat_database}, {@code pg_stat_user_tables}) read around a measured run.
 */
final class BenchDatabase {

  /** Server counters at one instant: the database's transactions, the schema's row writes, the WAL position. */
  record ServerStats(long xactCommit, long xactRollback, long inserted, long updated, long hotUpdated,
      long deleted, long walBytes) {

    ServerStats minus(ServerStats before) {
      return new ServerStats(xactCommit - before.xactCommit, xactRollback - before.xactRollback,
          inserted - before.inserted, updated - before.updated, hotUpdated - before.hotUpdated,
          deleted - before.deleted, walBytes - before.walBytes);
    }

    long rowsWritten() {
      return inserted + updated + deleted;
    }
  }

  private static final AtomicInteger POOLS = new AtomicInteger();

  final String url;
  final String user;

  BenchDatabase(String url, String user) {
    this.url = url;
    this.user = user;
  }

  /** A fresh, unused schema name with this prefix. */
  static String freshSchema(String prefix) {
    return (prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10)).toLowerCase(Locale.ROOT);
  }

  /**
   * A HikariCP pool of exactly {@code size} connections, all opened before it is returned, each tagged with
   * the pool's application name so that {@link #awaitGone} can tell when the server has let them go.
   */
  HikariDataSource pool(String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    String applicationName = "cipolicy-bench-" + name + "-" + POOLS.incrementAndGet();
    config.setPoolName(applicationName);
    config.addDataSourceProperty("ApplicationName", applicationName);
    HikariDataSource pool = new HikariDataSource(config);
    Connection[] held = new Connection[size];
    try {
      for (int i = 0; i < size; i++) {
        held[i] = pool.getConnection();
      }
      for (Connection c : held) {
        c.close();
      }
    } catch (SQLException e) {
      pool.close();
      throw new IllegalStateException("cannot open " + size + " connections to " + url + ": " + e.getMessage(), e);
    }
    return pool;
  }

  /**
   * Closes a pool and waits until the server has ended its sessions: a session reports its pending
   * statistics when it ends, so the counters read afterwards include all of its work.
   */
  void closeAndAwaitGone(HikariDataSource pool) {
    String applicationName = pool.getPoolName();
    pool.close();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (queryLong("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + applicationName + "'") == 0) {
        return;
      }
      sleep(20);
    }
    throw new IllegalStateException("the sessions of pool " + applicationName + " did not end within 10 s");
  }

  /**
   * Reads the database's commit counters, the row-write counters of one schema's tables and the server's WAL
   * position (bytes written since the cluster was created; every database's writes move it).
   */
  ServerStats stats(String schema) {
    try (Connection c = connect()) {
      long commits;
      long rollbacks;
      long wal;
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT xact_commit, xact_rollback,"
          + " pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"
          + " FROM pg_stat_database WHERE datname = current_database()")) {
        rs.next();
        commits = rs.getLong(1);
        rollbacks = rs.getLong(2);
        wal = rs.getLong(3);
      }
      try (PreparedStatement st = c.prepareStatement("SELECT coalesce(sum(n_tup_ins), 0), coalesce(sum(n_tup_upd), 0),"
          + " coalesce(sum(n_tup_hot_upd), 0), coalesce(sum(n_tup_del), 0) FROM pg_stat_user_tables"
          + " WHERE schemaname = ?")) {
        st.setString(1, schema);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          return new ServerStats(commits, rollbacks, rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), wal);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read server statistics: " + e.getMessage(), e);
    }
  }

  /** The server's {@code shared_preload_libraries}, where {@code pg_stat_statements} would have to be. */
  String preloadLibraries() {
    return queryText("SELECT current_setting('shared_preload_libraries')");
  }

  String queryText(String sql) {
    try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return String.valueOf(rs.getString(1));
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  long queryLong(String sql) {
    try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  void exec(String sql) {
    try (Connection c = connect(); Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  void dropSchema(String schema) {
    exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url, user, null);
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

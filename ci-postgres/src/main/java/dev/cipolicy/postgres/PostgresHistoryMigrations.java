package dev.cipolicy.postgres;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.MetricStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The schema migrator of {@link PostgresMetricHistoryStore}: applies the versioned SQL scripts of the metric
 * history shipped in this jar ({@code dev/cipolicy/postgres/history-migrations/V<n>__<name>.sql}) that a
 * schema lacks, in order, in one transaction, each recorded in {@code gate_schema_version}.
 *
 * <p>The history is a migration set of its own, beside the queue's ({@link PostgresMigrations}, version table
 * {@code queue_schema_version}): the two share a schema without sharing version numbers, so either can
 * evolve, and a host can use one store without the other's tables. Both take the same advisory transaction
 * lock per schema, so migrations of either set from any number of processes run one at a time and never race
 * on {@code CREATE SCHEMA} (docs/adr/0002-postgres-history-migrations.md).
 */
public final class PostgresHistoryMigrations {

  /** The migrations, in version order. */
  static final List<String> SCRIPTS = List.of("V1__metric_history.sql");

  /** The advisory lock key prefix; the same as the queue migrations', so the two sets never run at once. */
  static final String LOCK_PREFIX = "dev.cipolicy.postgres.migrate:";

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  /** Unique violation and duplicate schema: a concurrent CREATE SCHEMA won; deadlock: re-run. */
  private static final Set<String> RETRYABLE = Set.of("23505", "42P06", "40P01", "40001");
  private static final int MAX_TRIES = 3;

  private PostgresHistoryMigrations() {}

  /**
   * The latest schema version of the metric history this jar ships.
   *
   * @return the version
   */
  public static int latestVersion() {
    return SCRIPTS.size();
  }

  /**
   * Checks a schema name: lower-case letters, digits and underscores, not starting with a digit, at most 63
   * characters (a PostgreSQL identifier that needs no quoting and cannot inject SQL).
   *
   * @param schema the name
   * @return the name
   * @throws InvalidInputException when the name is not such an identifier
   */
  public static String validSchema(String schema) {
    if (schema == null || !IDENTIFIER.matcher(schema).matches()) {
      throw new InvalidInputException("schema name '" + schema
          + "' is not a plain PostgreSQL identifier (expected [a-z_][a-z0-9_]{0,62})");
    }
    return schema;
  }

  /**
   * Brings the metric history tables of a schema to the latest version, creating the schema if needed.
   * Running it again, or from several processes at once, changes nothing more.
   *
   * @param dataSource the database
   * @param schema the schema name (see {@link #validSchema})
   * @return the version the history tables had before (0: none)
   * @throws InvalidInputException when the schema name is not a plain identifier
   * @throws MetricStoreException when the database fails, the schema is newer than this jar, or a script is
   *     missing
   */
  public static int migrate(DataSource dataSource, String schema) {
    String s = '"' + validSchema(schema) + '"';
    for (int attempt = 1; ; attempt++) {
      try {
        return migrateOnce(dataSource, schema, s);
      } catch (SQLException e) {
        if (attempt >= MAX_TRIES || e.getSQLState() == null || !RETRYABLE.contains(e.getSQLState())) {
          throw new MetricStoreException("could not migrate the metric history in schema " + schema
              + " (SQLSTATE " + e.getSQLState() + "): " + e.getMessage(), e);
        }
      }
    }
  }

  private static int migrateOnce(DataSource dataSource, String schema, String s) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
          lock.setString(1, LOCK_PREFIX + schema);
          lock.execute();
        }
        exec(c, "CREATE SCHEMA IF NOT EXISTS " + s);
        exec(c, "CREATE TABLE IF NOT EXISTS " + s + ".gate_schema_version (version integer PRIMARY KEY,"
            + " script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
        int current;
        try (PreparedStatement q = c.prepareStatement("SELECT coalesce(max(version), 0) FROM " + s
            + ".gate_schema_version"); ResultSet rs = q.executeQuery()) {
          rs.next();
          current = rs.getInt(1);
        }
        if (current > SCRIPTS.size()) {
          throw new MetricStoreException("the metric history in schema " + schema + " is at version " + current
              + ", newer than this ci-postgres (" + SCRIPTS.size() + "); upgrade the library",
              new IllegalStateException("gate_schema_version holds version " + current));
        }
        for (int v = current + 1; v <= SCRIPTS.size(); v++) {
          String script = SCRIPTS.get(v - 1);
          exec(c, load(script).replace("${schema}", s));
          try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + s
              + ".gate_schema_version (version, script) VALUES (?, ?)")) {
            ins.setInt(1, v);
            ins.setString(2, script);
            ins.executeUpdate();
          }
        }
        c.commit();
        return current;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException r) {
          e.addSuppressed(r);
        }
        throw e;
      }
    }
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.execute();
    }
  }

  private static String load(String script) {
    String path = "history-migrations/" + script;
    try (InputStream in = PostgresHistoryMigrations.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new MetricStoreException("migration " + path + " is missing from the ci-postgres jar",
            new IllegalStateException("resource dev/cipolicy/postgres/" + path + " not found"));
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new MetricStoreException("could not read migration " + path + ": " + e.getMessage(), e);
    }
  }
}

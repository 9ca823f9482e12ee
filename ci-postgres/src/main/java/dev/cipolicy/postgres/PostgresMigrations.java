package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * The schema migrator of the PostgreSQL store: applies the versioned SQL scripts shipped in this jar
 * ({@code dev/cipolicy/postgres/migrations/V<n>__<name>.sql}) that a schema lacks, in order, all in one
 * transaction with each version recorded in {@code <prefix>schema_version}, serialized across processes by
 * an advisory transaction lock on the schema, so that running it again (or from several processes at once) is
 * a no-op. In the scripts {@code ${schema}} stands for the quoted schema and {@code ${prefix}} for the table
 * prefix ({@link PostgresQueueOptions}).
 */
public final class PostgresMigrations {

  /** The migrations, in version order. */
  static final List<String> SCRIPTS = List.of("V1__queue.sql", "V2__row_checks.sql");

  private PostgresMigrations() {}

  /**
   * The latest schema version this jar ships.
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
   * @throws InvalidQueueInputException when the name is not such an identifier
   */
  public static String validSchema(String schema) {
    return PostgresQueueOptions.validSchema(schema);
  }

  /**
   * Brings a schema with the default table prefix to the latest version, creating it if needed.
   *
   * @param dataSource the database
   * @param schema the schema name (see {@link #validSchema})
   * @return the version the schema had before
   * @throws QueueStoreException when the database fails or a script is missing
   */
  public static int migrate(DataSource dataSource, String schema) {
    return migrate(dataSource, PostgresQueueOptions.inSchema(schema));
  }

  /**
   * Brings the tables of the given schema and prefix to the latest version, creating the schema if needed.
   *
   * @param dataSource the database
   * @param options the schema and table prefix
   * @return the version those tables had before (0 when there were none)
   * @throws InvalidQueueInputException when the data source or the options are missing
   * @throws QueueStoreException when the database fails or a script is missing
   */
  public static int migrate(DataSource dataSource, PostgresQueueOptions options) {
    if (dataSource == null || options == null) {
      throw new InvalidQueueInputException("migrating the PostgreSQL queue tables needs a DataSource and options;"
          + " got " + (dataSource == null ? "no DataSource" : "no options"));
    }
    String schema = options.schema();
    String s = '"' + schema + '"';
    String versions = options.sql("schema_version");
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
          lock.setString(1, "dev.cipolicy.postgres.migrate:" + schema);
          lock.execute();
        }
        exec(c, "CREATE SCHEMA IF NOT EXISTS " + s);
        exec(c, "CREATE TABLE IF NOT EXISTS " + versions + " (version integer PRIMARY KEY,"
            + " script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
        int current;
        try (PreparedStatement q = c.prepareStatement("SELECT coalesce(max(version), 0) FROM " + versions);
            ResultSet rs = q.executeQuery()) {
          rs.next();
          current = rs.getInt(1);
        }
        if (current > SCRIPTS.size()) {
          throw new QueueStoreException("tables " + options.display("*") + " are at version " + current
              + ", newer than this ci-postgres (" + SCRIPTS.size() + "); upgrade the library");
        }
        for (int v = current + 1; v <= SCRIPTS.size(); v++) {
          String script = SCRIPTS.get(v - 1);
          exec(c, load(script).replace("${schema}", s).replace("${prefix}", options.tablePrefix()));
          try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + versions
              + " (version, script) VALUES (?, ?)")) {
            ins.setInt(1, v);
            ins.setString(2, script);
            ins.executeUpdate();
          }
        }
        c.commit();
        return current;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new QueueStoreException("could not migrate tables " + options.display("*") + " (SQLSTATE "
          + e.getSQLState() + "): " + e.getMessage(), e);
    }
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.execute();
    }
  }

  private static String load(String script) {
    String path = "migrations/" + script;
    try (InputStream in = PostgresMigrations.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new QueueStoreException("migration " + path + " is missing from the ci-postgres jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new QueueStoreException("could not read migration " + path + ": " + e.getMessage(), e);
    }
  }
}

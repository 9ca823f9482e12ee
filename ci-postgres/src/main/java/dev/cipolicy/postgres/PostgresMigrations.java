package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.QueueStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The schema migrator of the PostgreSQL store: applies the versioned SQL scripts shipped in this jar
 * ({@code dev/cipolicy/postgres/migrations/V<n>__<name>.sql}) that a schema lacks, in order, each in one
 * transaction with its version recorded in {@code queue_schema_version}, serialized across processes by an
 * advisory transaction lock, so that running it again (or from several processes at once) is a no-op.
 */
public final class PostgresMigrations {

  /** The migrations, in version order. */
  static final List<String> SCRIPTS = List.of("V1__queue.sql", "V2__claim_affinity_index.sql");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

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
   * @throws IllegalArgumentException when the name is not such an identifier
   */
  public static String validSchema(String schema) {
    if (schema == null || !IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException("schema name '" + schema
          + "' is not a plain PostgreSQL identifier (expected [a-z_][a-z0-9_]{0,62})");
    }
    return schema;
  }

  /**
   * Brings a schema to the latest version, creating it if needed.
   *
   * @param dataSource the database
   * @param schema the schema name (see {@link #validSchema})
   * @return the version the schema had before
   * @throws QueueStoreException when the database fails or a script is missing
   */
  public static int migrate(DataSource dataSource, String schema) {
    String s = '"' + validSchema(schema) + '"';
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
          lock.setString(1, "dev.cipolicy.postgres.migrate:" + schema);
          lock.execute();
        }
        exec(c, "CREATE SCHEMA IF NOT EXISTS " + s);
        exec(c, "CREATE TABLE IF NOT EXISTS " + s + ".queue_schema_version (version integer PRIMARY KEY,"
            + " script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
        int current;
        try (PreparedStatement q = c.prepareStatement("SELECT coalesce(max(version), 0) FROM " + s
            + ".queue_schema_version"); ResultSet rs = q.executeQuery()) {
          rs.next();
          current = rs.getInt(1);
        }
        if (current > SCRIPTS.size()) {
          throw new QueueStoreException("schema " + schema + " is at version " + current
              + ", newer than this ci-postgres (" + SCRIPTS.size() + "); upgrade the library");
        }
        for (int v = current + 1; v <= SCRIPTS.size(); v++) {
          String script = SCRIPTS.get(v - 1);
          exec(c, load(script).replace("${schema}", s));
          try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + s
              + ".queue_schema_version (version, script) VALUES (?, ?)")) {
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
      throw new QueueStoreException("could not migrate schema " + schema + ": " + e.getMessage(), e);
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

package dev.cipolicy.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One ordered set of versioned SQL scripts shipped in this jar, and the work that applies the ones a schema
 * lacks, in a transaction the caller runs ({@link PgTransactions}). Shared by the queue's and the metric
 * history's migrators, which differ only in their resource directory, version table, placeholders, retry
 * policy and exception types.
 *
 * <p>The work takes an advisory transaction lock on the given key first, so that migrations from any number
 * of processes run one at a time; creates the schema and the version table if needed; reads the recorded
 * version; and, unless the schema is already newer than this set, runs each missing script and records it.
 * A schema newer than the set is left untouched and its version returned, so the caller can refuse it with
 * its own exception.
 */
final class SqlMigrationSet {

  /** A script of the set is missing from the jar or unreadable; the transaction is rolled back. */
  static final class ScriptUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ScriptUnavailable(String message, @Nullable Throwable cause) {
      super(message, cause);
    }

    @Override
    public String getMessage() {
      return Objects.requireNonNull(super.getMessage());
    }
  }

  private final String resourceDirectory;
  private final List<String> scripts;

  /**
   * @param resourceDirectory the directory of the scripts relative to this package, e.g. {@code migrations}
   * @param scripts the script file names in version order (version n is element n-1)
   */
  SqlMigrationSet(String resourceDirectory, List<String> scripts) {
    this.resourceDirectory = resourceDirectory;
    this.scripts = List.copyOf(scripts);
  }

  /** The latest version of the set. */
  int latestVersion() {
    return scripts.size();
  }

  /** The script names in version order. */
  List<String> scripts() {
    return scripts;
  }

  /**
   * Applies the missing scripts on a connection in a transaction (the caller commits or rolls back).
   *
   * @param c the connection, not in auto-commit mode
   * @param lockKey the advisory lock key (hashed with {@code hashtext})
   * @param quotedSchema the schema, already validated and quoted
   * @param versionTable the qualified version table, e.g. {@code "s".queue_schema_version}
   * @param expand replaces the placeholders of a script's text
   * @return the version recorded before; greater than {@link #latestVersion()} when the schema is newer than
   *     this set, in which case nothing was changed
   * @throws SQLException when the database fails
   * @throws ScriptUnavailable when a script to apply is missing from the jar
   */
  int apply(Connection c, String lockKey, String quotedSchema, String versionTable, UnaryOperator<String> expand)
      throws SQLException {
    try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
      lock.setString(1, lockKey);
      lock.execute();
    }
    exec(c, "CREATE SCHEMA IF NOT EXISTS " + quotedSchema);
    exec(c, "CREATE TABLE IF NOT EXISTS " + versionTable + " (version integer PRIMARY KEY,"
        + " script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
    int current;
    try (PreparedStatement q = c.prepareStatement("SELECT coalesce(max(version), 0) FROM " + versionTable);
        ResultSet rs = q.executeQuery()) {
      rs.next();
      current = rs.getInt(1);
    }
    for (int v = current + 1; v <= scripts.size(); v++) {
      String script = scripts.get(v - 1);
      exec(c, expand.apply(load(script)));
      try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + versionTable
          + " (version, script) VALUES (?, ?)")) {
        ins.setInt(1, v);
        ins.setString(2, script);
        ins.executeUpdate();
      }
    }
    return current;
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.execute();
    }
  }

  private String load(String script) {
    String path = resourceDirectory + "/" + script;
    try (InputStream in = SqlMigrationSet.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new ScriptUnavailable("migration " + path + " is missing from the ci-postgres jar", null);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ScriptUnavailable("could not read migration " + path + ": " + e.getMessage(), e);
    }
  }
}

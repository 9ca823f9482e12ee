package dev.cipolicy.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The pre-release migration chains that version 1 of each set replaces, kept as test resources
 * ({@code legacy-migrations/}, versions 1 to 13 of the queue; {@code legacy-history-migrations/}, versions 1 and
 * 2 of the metric history) only to prove that the squash changed nothing ({@link SquashedSchemaTest}) and to
 * build schemas as the pre-release migrator left them: scripts applied in one transaction, each recorded in a
 * version table of {@code (version, script, applied_at)}, without checksums.
 */
final class LegacyChains {

  /** The queue's pre-release scripts, in version order. */
  static final List<String> QUEUE = List.of("V1__queue.sql", "V2__row_checks.sql", "V3__claim_affinity_index.sql",
      "V4__queued_table.sql", "V5__queued_notify.sql", "V6__churn_autovacuum.sql", "V7__job_results.sql",
      "V8__history_and_purge.sql", "V9__devices.sql", "V10__fleet_shares.sql", "V11__kept_reservations.sql",
      "V12__job_timeouts.sql", "V13__constant_column_domains.sql");

  /**
   * The blocks version 1 of the queue gained after the squash ({@code after-squash/}), each a copy of its block
   * at the end of {@code V1__queue.sql}, in order: the chain plus these builds the catalog of version 1.
   */
  static final List<String> QUEUE_AFTER_SQUASH = List.of("ci_runs.sql");

  /** The metric history's pre-release scripts, in version order. */
  static final List<String> HISTORY = List.of("V1__metric_history.sql", "V2__run_identity.sql");

  private LegacyChains() {}

  /**
   * Applies the queue's pre-release versions 1 to {@code upTo} as the pre-release migrator did.
   *
   * @param dataSource the database
   * @param options the schema and prefix
   * @param upTo the last version to apply
   */
  static void applyQueue(DataSource dataSource, PostgresQueueOptions options, int upTo) {
    String s = '"' + options.schema() + '"';
    apply(dataSource, "legacy-migrations", QUEUE.subList(0, upTo), s, options.sql("schema_version"),
        text -> text.replace("${schema}", s).replace("${prefix}", options.tablePrefix()));
  }

  /**
   * Applies the blocks version 1 of the queue gained after the squash ({@link #QUEUE_AFTER_SQUASH}) on top of
   * a schema built by the whole pre-release chain, in one transaction, recording nothing.
   *
   * @param dataSource the database
   * @param options the schema and prefix
   */
  static void applyQueueAfterSquash(DataSource dataSource, PostgresQueueOptions options) {
    String s = '"' + options.schema() + '"';
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (String script : QUEUE_AFTER_SQUASH) {
        exec(c, load("after-squash/" + script).replace("${schema}", s).replace("${prefix}", options.tablePrefix()));
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("could not apply after-squash: " + e.getMessage(), e);
    }
  }

  /**
   * Applies the metric history's pre-release versions 1 to {@code upTo} as the pre-release migrator did.
   *
   * @param dataSource the database
   * @param schema the schema
   * @param upTo the last version to apply
   */
  static void applyHistory(DataSource dataSource, String schema, int upTo) {
    String s = '"' + schema + '"';
    apply(dataSource, "legacy-history-migrations", HISTORY.subList(0, upTo), s, s + ".gate_schema_version",
        text -> text.replace("${schema}", s));
  }

  private static void apply(DataSource dataSource, String directory, List<String> scripts, String quotedSchema,
      String versionTable, UnaryOperator<String> expand) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      exec(c, "CREATE SCHEMA IF NOT EXISTS " + quotedSchema);
      exec(c, "CREATE TABLE IF NOT EXISTS " + versionTable + " (version integer PRIMARY KEY,"
          + " script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      for (int v = 1; v <= scripts.size(); v++) {
        exec(c, expand.apply(load(directory + "/" + scripts.get(v - 1))));
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + versionTable + " (version, script)"
            + " VALUES (?, ?)")) {
          ins.setInt(1, v);
          ins.setString(2, scripts.get(v - 1));
          ins.executeUpdate();
        }
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("could not apply " + directory + ": " + e.getMessage(), e);
    }
  }

  /**
   * A resource of this package as text.
   *
   * @param path the path relative to this package
   * @return its text
   */
  static String load(String path) {
    try (InputStream in = LegacyChains.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("test resource " + path + " is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("could not read " + path + ": " + e.getMessage(), e);
    }
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.execute();
    }
  }
}

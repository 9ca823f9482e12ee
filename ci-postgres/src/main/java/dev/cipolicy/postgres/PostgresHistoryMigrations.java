package dev.cipolicy.postgres;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.MetricStoreException;
import dev.cipolicy.gate.MetricStoreUnavailableException;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The schema migrator of {@link PostgresMetricHistoryStore}: applies the versioned SQL scripts of the metric
 * history shipped in this jar ({@code dev/cipolicy/postgres/history-migrations/V<n>__<name>.sql}) that a
 * schema lacks, in order, in one transaction, each recorded in {@code gate_schema_version} with its script's
 * checksum. Like the queue's migrator it compares every recorded version with the shipped script first and
 * refuses, changing nothing, an edited migration, a gap, or a version table of the pre-release chain (versions
 * 1 and 2, which version 1 replaces).
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

  /** The last version of the pre-release chain that version 1 replaces (same schema, proven by a test). */
  static final int PRE_RELEASE_VERSION = 2;

  /** The advisory lock key prefix; the same as the queue migrations', so the two sets never run at once. */
  static final String LOCK_PREFIX = PostgresMigrations.LOCK_PREFIX;

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  /**
   * Contention, and a unique violation or duplicate schema (a concurrent {@code CREATE SCHEMA} won, should a
   * migrator ever take another lock): re-run, at most 3 tries.
   */
  private static final PgTransactions.Policy POLICY = PgTransactions.Policy.standard()
      .alsoRetrying(PgTransactions.UNIQUE_VIOLATION, "42P06").withMaxTries(3);
  /** The shipped set. */
  static final SqlMigrationSet SET = new SqlMigrationSet("history-migrations", SCRIPTS, PRE_RELEASE_VERSION);

  private PostgresHistoryMigrations() {}

  /**
   * The latest schema version of the metric history this jar ships.
   *
   * @return the version
   */
  public static int latestVersion() {
    return SET.latestVersion();
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
   * @throws MetricStoreUnavailableException when the database cannot be reached
   * @throws MetricStoreException when the database fails otherwise, a script is missing, or the schema is
   *     refused (newer than this jar, an applied migration edited, created by the pre-release chain)
   */
  public static int migrate(DataSource dataSource, String schema) {
    return migrate(dataSource, schema, SET);
  }

  /** {@link #migrate(DataSource, String)} with another set of scripts: for tests of later versions. */
  static int migrate(DataSource dataSource, String schema, SqlMigrationSet set) {
    String s = '"' + validSchema(schema) + '"';
    PgTransactions tx = new PgTransactions(dataSource, POLICY, f -> failure(schema, f));
    SqlMigrationSet.Target target = new SqlMigrationSet.Target("the metric history tables " + schema + ".gate_*",
        schema + ".gate_schema_version", "drop them (DROP SCHEMA " + schema + " CASCADE when the schema holds"
        + " nothing else; otherwise drop its gate_* tables)");
    int current;
    try {
      current = tx.inTransaction("migrate the metric history", c -> set.apply(c, LOCK_PREFIX + schema, s,
          s + ".gate_schema_version", text -> text.replace("${schema}", s), target));
    } catch (SqlMigrationSet.ScriptUnavailable e) {
      throw new MetricStoreException(e.getMessage(), e);
    } catch (SqlMigrationSet.Refused e) {
      throw new MetricStoreException(e.getMessage(), e);
    }
    if (current > set.latestVersion()) {
      throw new MetricStoreException("the metric history in schema " + schema + " is at version " + current
          + ", newer than this ci-postgres (" + set.latestVersion() + "); upgrade the library",
          new IllegalStateException("gate_schema_version holds version " + current));
    }
    return current;
  }

  /**
   * The history's exception for a failed migration: {@code could not migrate the metric history in schema <s>
   * (SQLSTATE <code>): <driver message>}, a {@link MetricStoreUnavailableException} when the database could not
   * be reached.
   */
  private static MetricStoreException failure(String schema, PgTransactions.Failure f) {
    String what = "could not migrate the metric history in schema " + schema;
    Exception cause = f.cause() != null ? f.cause() : new IllegalStateException(f.situation());
    String message = f.cause() == null ? what + ": " + f.situation()
        : what + " (SQLSTATE " + f.sqlState() + "): " + f.driverMessage();
    return f.unavailable() ? new MetricStoreUnavailableException(f.operation(), f.mayHaveCommitted(), message, cause)
        : new MetricStoreException(message, cause);
  }

}

package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.InvalidQueueInputException;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The schema migrator of the PostgreSQL store: applies the versioned SQL scripts shipped in this jar
 * ({@code dev/cipolicy/postgres/migrations/V<n>__<name>.sql}) that a schema lacks, in order, all in one
 * transaction with each version recorded in {@code <prefix>schema_version}, serialized across processes by
 * an advisory transaction lock on the schema, so that running it again (or from several processes at once) is
 * a no-op. In the scripts {@code ${schema}} stands for the quoted schema and {@code ${prefix}} for the table
 * prefix ({@link PostgresQueueOptions}). It runs on the stores' transaction runner: a database that cannot be
 * reached is a {@link QueueStoreUnavailableException}, as for every operation of {@link PostgresQueueStore}.
 */
public final class PostgresMigrations {

  /** The migrations, in version order. */
  static final List<String> SCRIPTS =
      List.of("V1__queue.sql", "V2__row_checks.sql", "V3__claim_affinity_index.sql",
          "V4__queued_table.sql", "V5__queued_notify.sql", "V6__churn_autovacuum.sql", "V7__job_results.sql",
          "V8__history_and_purge.sql", "V9__devices.sql", "V10__fleet_shares.sql",
          "V11__kept_reservations.sql", "V12__job_timeouts.sql",
          "V13__constant_column_domains.sql");

  /**
   * The advisory lock key prefix, followed by the schema name; the history migrations take the same key, so
   * the two sets never run at once on one schema.
   */
  static final String LOCK_PREFIX = "dev.cipolicy.postgres.migrate:";

  private static final SqlMigrationSet SET = new SqlMigrationSet("migrations", SCRIPTS);

  private PostgresMigrations() {}

  /**
   * The latest schema version this jar ships.
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
   * @throws QueueStoreUnavailableException when the database cannot be reached
   * @throws QueueStoreException when the database fails otherwise or a script is missing
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
   * @throws QueueStoreUnavailableException when the database cannot be reached
   * @throws QueueStoreException when the database fails otherwise or a script is missing
   */
  public static int migrate(DataSource dataSource, PostgresQueueOptions options) {
    if (dataSource == null || options == null) {
      throw new InvalidQueueInputException("migrating the PostgreSQL queue tables needs a DataSource and options;"
          + " got " + (dataSource == null ? "no DataSource" : "no options"));
    }
    String schema = options.schema();
    String s = '"' + schema + '"';
    String tables = options.display("*");
    PgTransactions tx = new PgTransactions(dataSource, PgTransactions.Policy.standard(), f -> failure(tables, f));
    int current;
    try {
      current = tx.inTransaction("migrate", c -> SET.apply(c, LOCK_PREFIX + schema, s, options.sql("schema_version"),
          text -> text.replace("${schema}", s).replace("${prefix}", options.tablePrefix())));
    } catch (SqlMigrationSet.ScriptUnavailable e) {
      throw new QueueStoreException(e.getMessage(), e);
    }
    if (current > SET.latestVersion()) {
      throw new QueueStoreException("tables " + options.display("*") + " are at version " + current
          + ", newer than this ci-postgres (" + SET.latestVersion() + "); upgrade the library");
    }
    return current;
  }

  /** The queue's exception for a failed migration. */
  private static QueueStoreException failure(String tables, PgTransactions.Failure f) {
    String what = "could not migrate tables " + tables;
    if (f.unavailable()) {
      return new QueueStoreUnavailableException(f.operation(), f.mayHaveCommitted(), what + ": " + f.situation()
          + " (" + f.error() + "); " + f.consequence(), Objects.requireNonNull(f.cause()));
    }
    SQLException cause = f.cause();
    return cause == null ? new QueueStoreException(what + ": " + f.situation())
        : new QueueStoreException(what + " (SQLSTATE " + f.sqlState() + "): " + f.driverMessage(), cause);
  }
}

package dev.cipolicy.postgres;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The schema migrator of the PostgreSQL store: applies the versioned SQL scripts shipped in this jar
 * ({@code dev/cipolicy/postgres/migrations/V<n>__<name>.sql}) that a schema lacks, in order, all in one
 * transaction with each version recorded in {@code <prefix>schema_version} with its script's checksum,
 * serialized across processes by an advisory transaction lock on the schema, so that running it again (or from
 * several processes at once) is a no-op. In the scripts {@code ${schema}} stands for the quoted schema and
 * {@code ${prefix}} for the table prefix ({@link PostgresQueueOptions}).
 *
 * <p>Before applying anything it compares every recorded version with the script this jar ships (name and
 * SHA-256 of the normalized text) and refuses, changing nothing, a schema whose recorded checksum differs (a
 * released migration was edited), whose recorded versions have a gap, or whose version table was written by
 * the pre-release chain of versions 1 to 13 that version 1 replaces (docs/postgres.md, "Schemas from before
 * 0.1.0"). It runs on the stores' transaction runner: a database that cannot be reached is a
 * {@link QueueStoreUnavailableException}, as for every operation of {@link PostgresQueueStore}.
 */
public final class PostgresMigrations {

  /** The migrations, in version order. */
  static final List<String> SCRIPTS = List.of("V1__queue.sql");

  /** The last version of the pre-release chain that version 1 replaces (same schema, proven by a test). */
  static final int PRE_RELEASE_VERSION = 13;

  /**
   * The advisory lock key prefix, followed by the schema name; the history migrations take the same key, so
   * the two sets never run at once on one schema.
   */
  static final String LOCK_PREFIX = "dev.cipolicy.postgres.migrate:";

  /** The shipped set. */
  static final SqlMigrationSet SET = new SqlMigrationSet("migrations", SCRIPTS, PRE_RELEASE_VERSION);

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
   * @throws QueueStoreException when the database fails otherwise, a script is missing, or the schema is
   *     refused (newer than this jar, an applied migration edited, a pre-release schema)
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
   * @throws QueueStoreException when the database fails otherwise, a script is missing, or the tables are
   *     refused (newer than this jar, an applied migration edited, created by the pre-release chain)
   */
  public static int migrate(DataSource dataSource, PostgresQueueOptions options) {
    return migrate(dataSource, options, SET);
  }

  /** {@link #migrate(DataSource, PostgresQueueOptions)} with another set of scripts: for tests of later versions. */
  static int migrate(DataSource dataSource, PostgresQueueOptions options, SqlMigrationSet set) {
    if (dataSource == null || options == null) {
      throw new InvalidQueueInputException("migrating the PostgreSQL queue tables needs a DataSource and options;"
          + " got " + (dataSource == null ? "no DataSource" : "no options"));
    }
    String schema = options.schema();
    String s = '"' + schema + '"';
    String tables = options.display("*");
    PgTransactions tx = new PgTransactions(dataSource, PgTransactions.Policy.standard(), f -> failure(tables, f));
    int current;
    SqlMigrationSet.Target target = new SqlMigrationSet.Target("tables " + tables,
        options.display("schema_version"), "drop them (DROP SCHEMA " + schema + " CASCADE when the schema holds"
        + " nothing else; otherwise drop its " + options.tablePrefix() + "* tables, domains, function and sequence)");
    try {
      current = tx.inTransaction("migrate", c -> set.apply(c, LOCK_PREFIX + schema, s, options.sql("schema_version"),
          text -> text.replace("${schema}", s).replace("${prefix}", options.tablePrefix()), target));
    } catch (SqlMigrationSet.ScriptUnavailable e) {
      throw new QueueStoreException(e.getMessage(), e);
    } catch (SqlMigrationSet.Refused e) {
      throw new QueueStoreException(e.getMessage(), e);
    }
    if (current > set.latestVersion()) {
      throw new QueueStoreException("tables " + tables + " are at version " + current
          + ", newer than this ci-postgres (" + set.latestVersion() + "); upgrade the library");
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

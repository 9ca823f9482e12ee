package dev.cipolicy.postgres;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link PostgresQueueStore} keeps its tables, and the time limits of its operations: the schema and
 * the prefix of every table, index and sequence name (default {@value #DEFAULT_TABLE_PREFIX}, giving
 * {@code queue_requests}, {@code queue_jobs}, ...), and the lock, statement and idle-in-transaction timeouts
 * set on every operation ({@link PostgresTimeouts#defaults()} unless given). Schema and prefix are plain
 * PostgreSQL identifiers (lower-case letters, digits, underscores, not starting with a digit), checked here, so
 * they are never quoted wrongly and cannot inject SQL. Two stores with different prefixes may share one schema
 * and never see each other's rows. Immutable.
 *
 * <pre>{@code
 * PostgresQueueStore store = PostgresQueueStore.create(dataSource,
 *     PostgresQueueOptions.inSchema("ci").withTablePrefix("bench_queue_"));   // ci.bench_queue_jobs, ...
 * }</pre>
 */
public final class PostgresQueueOptions {

  /** The table prefix unless one is given: tables are {@code queue_requests}, {@code queue_jobs}, .... */
  public static final String DEFAULT_TABLE_PREFIX = "queue_";

  /** The longest prefix: the longest derived name ({@code <prefix>requests_open_pr}) stays within 63 bytes. */
  static final int MAX_PREFIX_LENGTH = 40;

  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final Pattern PREFIX = Pattern.compile("[a-z_][a-z0-9_]{0," + (MAX_PREFIX_LENGTH - 1) + "}");

  private final String schema;
  private final String tablePrefix;
  private final PostgresTimeouts timeouts;

  private PostgresQueueOptions(String schema, String tablePrefix, PostgresTimeouts timeouts) {
    this.schema = schema;
    this.tablePrefix = tablePrefix;
    this.timeouts = timeouts;
  }

  /**
   * The options for a schema, with the default table prefix.
   *
   * @param schema the schema name: lower-case letters, digits and underscores, not starting with a digit, at
   *     most 63 characters
   * @return the options
   * @throws InvalidQueueInputException when the name is not such an identifier
   */
  public static PostgresQueueOptions inSchema(String schema) {
    return new PostgresQueueOptions(validSchema(schema), DEFAULT_TABLE_PREFIX, PostgresTimeouts.defaults());
  }

  /**
   * These options with another table prefix.
   *
   * @param prefix the prefix of every table, index and sequence name: lower-case letters, digits and
   *     underscores, not starting with a digit, at most {@value #MAX_PREFIX_LENGTH} characters, e.g.
   *     {@code ci_queue_}
   * @return the options
   * @throws InvalidQueueInputException when the prefix is not such an identifier
   */
  public PostgresQueueOptions withTablePrefix(String prefix) {
    if (prefix == null || !PREFIX.matcher(prefix).matches()) {
      throw new InvalidQueueInputException("table prefix " + quoted(prefix) + " is not usable: expected lower-case"
          + " letters, digits and underscores, not starting with a digit, 1 to " + MAX_PREFIX_LENGTH
          + " characters (a PostgreSQL identifier that needs no quoting), e.g. 'ci_queue_'");
    }
    return new PostgresQueueOptions(schema, prefix, timeouts);
  }

  /**
   * These options with other time limits for every operation of the store.
   *
   * @param limits the lock, statement and idle-in-transaction timeouts; {@link PostgresTimeouts#serverSettings()}
   *     to set none and leave them to the server's (or role's) settings
   * @return the options
   * @throws InvalidQueueInputException when the limits are missing
   */
  public PostgresQueueOptions withTimeouts(PostgresTimeouts limits) {
    if (limits == null) {
      throw new InvalidQueueInputException("queue store timeouts are missing: expected PostgresTimeouts.defaults(),"
          + " PostgresTimeouts.serverSettings() or limits derived from them");
    }
    return new PostgresQueueOptions(schema, tablePrefix, limits);
  }

  /**
   * The time limits set on every operation.
   *
   * @return the limits, {@link PostgresTimeouts#defaults()} unless set
   */
  public PostgresTimeouts timeouts() {
    return timeouts;
  }

  /**
   * The schema.
   *
   * @return the schema name
   */
  public String schema() {
    return schema;
  }

  /**
   * The prefix of every table, index and sequence name.
   *
   * @return the prefix, {@value #DEFAULT_TABLE_PREFIX} by default
   */
  public String tablePrefix() {
    return tablePrefix;
  }

  /** The SQL name of a table (or sequence) of this store: {@code "schema".prefix<name>}. */
  String sql(String name) {
    return '"' + schema + "\"." + tablePrefix + name;
  }

  /** The name of a table as messages show it: {@code schema.prefix<name>}. */
  String display(String name) {
    return schema + "." + tablePrefix + name;
  }

  /** An object name (index, constraint) in the schema: {@code prefix<name>}, unqualified. */
  String object(String name) {
    return tablePrefix + name;
  }

  static String validSchema(@Nullable String schema) {
    if (schema == null || !SCHEMA.matcher(schema).matches()) {
      throw new InvalidQueueInputException("schema name " + quoted(schema) + " is not a plain PostgreSQL"
          + " identifier: expected lower-case letters, digits and underscores, not starting with a digit, 1 to 63"
          + " characters ([a-z_][a-z0-9_]{0,62}), e.g. 'ci_queue'");
    }
    return schema;
  }

  private static String quoted(@Nullable String value) {
    return value == null ? "(missing)" : "'" + value + "'";
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof PostgresQueueOptions other && schema.equals(other.schema)
        && tablePrefix.equals(other.tablePrefix) && timeouts.equals(other.timeouts);
  }

  @Override
  public int hashCode() {
    return (schema.hashCode() * 31 + tablePrefix.hashCode()) * 31 + timeouts.hashCode();
  }

  @Override
  public String toString() {
    return "PostgresQueueOptions{schema=" + schema + ", tablePrefix=" + tablePrefix + ", timeouts=" + timeouts + "}";
  }
}

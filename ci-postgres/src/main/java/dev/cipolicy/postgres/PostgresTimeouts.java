package dev.cipolicy.postgres;

import dev.cipolicy.api.InvalidInputException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The time limits a PostgreSQL store sets on every one of its operations, so that no operation waits without
 * bound on a session that stalled while holding a lock: how long a statement may wait for a lock
 * ({@code lock_timeout}), how long a statement may run ({@code statement_timeout}), and how long the
 * operation's transaction may sit idle between two statements before the server ends the session
 * ({@code idle_in_transaction_session_timeout}; this one bounds how long a stalled process, paused or frozen
 * in the middle of an operation, keeps its locks). The store sets them with {@code SET LOCAL} at the start of
 * each transaction, so they end with it and never stay on a pooled connection. Immutable.
 *
 * <p>A reached limit rolls the operation back and is reported as the store's retryable exception
 * ({@code QueueStoreUnavailableException}, {@code MetricStoreUnavailableException}); see
 * {@code docs/failure-model.md}. {@link Duration#ZERO} for a limit means the store sets nothing and the
 * server's setting applies (the role's or database's, e.g. {@code ALTER ROLE ci SET lock_timeout = '2s'};
 * PostgreSQL's own default is no limit).
 *
 * <pre>{@code
 * PostgresTimeouts limits = PostgresTimeouts.defaults().withLockTimeout(Duration.ofSeconds(5));
 * PostgresQueueStore.create(dataSource, PostgresQueueOptions.inSchema("ci").withTimeouts(limits));
 * }</pre>
 */
public final class PostgresTimeouts {

  /**
   * The default lock timeout, 2 s: a healthy operation waits milliseconds for a row lock, so a wait of
   * seconds means the holder has stalled; the waiter gives up and its loop carries on with other work.
   */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(2);
  /**
   * The default statement timeout, 10 s: the stores' statements are index lookups and writes of a few rows
   * that take milliseconds; the longest (a request's job inserts, a scan of the open requests) stay far below.
   */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(10);
  /**
   * The default idle-in-transaction timeout, 10 s: between two statements of an operation the client only
   * computes for microseconds, so a transaction idle for seconds belongs to a process that is paused, frozen
   * or swapped out; ending its session releases its locks. It bounds how long such a process can block others.
   */
  public static final Duration DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT = Duration.ofSeconds(10);

  /** The longest limit PostgreSQL accepts: {@code 2^31 - 1} milliseconds (about 24.8 days). */
  public static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

  private static final PostgresTimeouts DEFAULTS = new PostgresTimeouts(DEFAULT_LOCK_TIMEOUT,
      DEFAULT_STATEMENT_TIMEOUT, DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT);
  private static final PostgresTimeouts SERVER_SETTINGS = new PostgresTimeouts(Duration.ZERO, Duration.ZERO,
      Duration.ZERO);

  private final Duration lockTimeout;
  private final Duration statementTimeout;
  private final Duration idleInTransactionTimeout;

  private PostgresTimeouts(Duration lockTimeout, Duration statementTimeout, Duration idleInTransactionTimeout) {
    this.lockTimeout = lockTimeout;
    this.statementTimeout = statementTimeout;
    this.idleInTransactionTimeout = idleInTransactionTimeout;
  }

  /**
   * The default limits: lock 2 s, statement 10 s, idle in transaction 10 s.
   *
   * @return the defaults
   */
  public static PostgresTimeouts defaults() {
    return DEFAULTS;
  }

  /**
   * No limits set by the store: every operation runs under the server's settings (for the role, database or
   * server). Use it when the limits are configured on the role ({@code ALTER ROLE ... SET}), which also saves
   * the hot operations two round trips each (see {@code docs/postgres.md}).
   *
   * @return limits that set nothing
   */
  public static PostgresTimeouts serverSettings() {
    return SERVER_SETTINGS;
  }

  /**
   * These limits with another lock timeout.
   *
   * @param timeout how long a statement may wait for a lock; {@link Duration#ZERO} for the server's setting;
   *     at most {@link #MAX_TIMEOUT}; a positive value below a millisecond counts as one millisecond
   * @return the limits
   * @throws InvalidInputException when the duration is missing, negative or too long
   */
  public PostgresTimeouts withLockTimeout(Duration timeout) {
    return new PostgresTimeouts(valid(timeout, "lock timeout"), statementTimeout, idleInTransactionTimeout);
  }

  /**
   * These limits with another statement timeout.
   *
   * @param timeout how long a statement may run; {@link Duration#ZERO} for the server's setting; at most
   *     {@link #MAX_TIMEOUT}
   * @return the limits
   * @throws InvalidInputException when the duration is missing, negative or too long
   */
  public PostgresTimeouts withStatementTimeout(Duration timeout) {
    return new PostgresTimeouts(lockTimeout, valid(timeout, "statement timeout"), idleInTransactionTimeout);
  }

  /**
   * These limits with another idle-in-transaction timeout.
   *
   * @param timeout how long an operation's transaction may sit idle between statements before the server ends
   *     its session; {@link Duration#ZERO} for the server's setting; at most {@link #MAX_TIMEOUT}
   * @return the limits
   * @throws InvalidInputException when the duration is missing, negative or too long
   */
  public PostgresTimeouts withIdleInTransactionTimeout(Duration timeout) {
    return new PostgresTimeouts(lockTimeout, statementTimeout, valid(timeout, "idle-in-transaction timeout"));
  }

  /**
   * How long a statement may wait for a lock.
   *
   * @return the limit, or {@link Duration#ZERO} for the server's setting
   */
  public Duration lockTimeout() {
    return lockTimeout;
  }

  /**
   * How long a statement may run.
   *
   * @return the limit, or {@link Duration#ZERO} for the server's setting
   */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  /**
   * How long an operation's transaction may sit idle between statements.
   *
   * @return the limit, or {@link Duration#ZERO} for the server's setting
   */
  public Duration idleInTransactionTimeout() {
    return idleInTransactionTimeout;
  }

  /** The limits as the transaction runner takes them (null for a limit left to the server). */
  PgTransactions.Timeouts runnerTimeouts() {
    return new PgTransactions.Timeouts(orNull(lockTimeout), orNull(statementTimeout),
        orNull(idleInTransactionTimeout));
  }

  private static @Nullable Duration orNull(Duration d) {
    return d.isZero() ? null : d;
  }

  private static Duration valid(@Nullable Duration timeout, String what) {
    if (timeout == null) {
      throw new InvalidInputException(what + " is missing: expected a duration from 0 (the server's setting) to "
          + MAX_TIMEOUT.toMillis() + " ms");
    }
    if (timeout.isNegative() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new InvalidInputException(what + " " + timeout + " is out of range: expected a duration from 0 (the"
          + " server's setting) to " + MAX_TIMEOUT.toMillis() + " ms, PostgreSQL's largest");
    }
    return timeout;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof PostgresTimeouts other && lockTimeout.equals(other.lockTimeout)
        && statementTimeout.equals(other.statementTimeout)
        && idleInTransactionTimeout.equals(other.idleInTransactionTimeout);
  }

  @Override
  public int hashCode() {
    return (lockTimeout.hashCode() * 31 + statementTimeout.hashCode()) * 31 + idleInTransactionTimeout.hashCode();
  }

  @Override
  public String toString() {
    return "PostgresTimeouts{lock=" + lockTimeout + ", statement=" + statementTimeout + ", idleInTransaction="
        + idleInTransactionTimeout + "}";
  }
}

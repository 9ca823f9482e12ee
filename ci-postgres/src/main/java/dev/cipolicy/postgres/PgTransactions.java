package dev.cipolicy.postgres;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The transaction runner of the PostgreSQL stores (and of their migrators): each operation borrows one
 * connection of the host's {@link DataSource}, runs its work as one {@code READ COMMITTED} transaction, and
 * gives the connection back. A hot operation may first try one auto-committed statement, which commits on its
 * own when it applies and writes nothing when it does not; the transaction runs then.
 *
 * <ul>
 *   <li><b>Re-runs.</b> A serialization failure or a deadlock ({@link #CONTENTION}), any other SQLSTATE the
 *       store declares retryable, or a {@link #rerun()} signal rolls the transaction back and runs the whole
 *       operation again on a fresh connection, up to the policy's number of tries. After a failed
 *       auto-committed statement the re-run goes straight to the transaction.
 *   <li><b>A lost connection</b> (no connection to be had; SQLSTATE class 08, or the server ending the
 *       session, 57P01 to 57P03, 25P03, 57P05; an I/O error of the driver) is never re-run: the runner reports
 *       when it happened, so the store can say whether the change may have been committed. Lost during the
 *       commit, or during an auto-committed statement (its own commit), the outcome is unknown; lost earlier,
 *       or ended by the server because the session sat idle (25P03 idle in transaction, 57P05 idle session:
 *       nothing of it can have committed), the server rolled the transaction back.
 *   <li><b>Time limits.</b> The policy names a lock, a statement and an idle-in-transaction timeout per
 *       operation ({@link PostgresTimeouts}); the runner sets them with {@code SET LOCAL} at the start of the
 *       transaction (one statement, sent with the {@code BEGIN}), so they end with it and never leak into the
 *       pool. An operation with a limit runs its auto-committed statement inside that transaction (one commit
 *       still, two more round trips). A reached lock or statement limit (55P03, 57014) is reported as
 *       {@link Failure.Kind#TIMED_OUT} after one try, never re-run here: the wait that hit its limit was
 *       behind a stalled holder, and re-running at once would only wait again; the store's caller retries
 *       on its next iteration ({@link Failure#retryable()}).
 * </ul>
 *
 * <p>Every failure is handed to the store's {@link Failures} as a {@link Failure}, which the store words in
 * its own exception type. Instants are bound by {@link PgValues}, at the same precision for every store.
 */
final class PgTransactions {

  /** Tries of an operation, the first included, before contention is reported. */
  static final int MAX_TRIES = 50;
  /** Serialization failure and deadlock: every store re-runs the transaction. */
  static final Set<String> CONTENTION = Set.of("40001", "40P01");
  /** Unique violation: re-run by stores whose operations re-check their condition and report the race. */
  static final String UNIQUE_VIOLATION = "23505";
  /**
   * The server ended the session: administrator command (e.g. pg_terminate_backend), crash, starting up; idle
   * in transaction past {@code idle_in_transaction_session_timeout} (25P03), idle past
   * {@code idle_session_timeout} (57P05).
   */
  private static final Set<String> SESSION_ENDED = Set.of("57P01", "57P02", "57P03", "25P03", "57P05");
  /** The server ended an idle session: it was waiting for the client, so nothing of it was committed. */
  private static final Set<String> ENDED_IDLE = Set.of("25P03", "57P05");
  /** Lock timeout (lock_not_available) and statement timeout (query_canceled). */
  private static final Set<String> TIMED_OUT = Set.of("55P03", "57014");

  /** The work of an operation on its connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** An operation's one-statement attempt: its result, or null when the full work must run. */
  @FunctionalInterface
  interface OneStatement<T> {
    @Nullable T run(Connection c) throws SQLException;
  }

  /**
   * The time limits of one operation: how long a statement may wait for a lock, how long it may run, and how
   * long the transaction may sit idle between statements.
   *
   * @param lock the lock timeout, or null for the server's setting
   * @param statement the statement timeout, or null for the server's setting
   * @param idleInTransaction the idle-in-transaction session timeout, or null for the server's setting
   */
  record Timeouts(@Nullable Duration lock, @Nullable Duration statement, @Nullable Duration idleInTransaction) {
    /** No limit beyond the server's own settings. */
    static final Timeouts NONE = new Timeouts(null, null, null);

    /** A lock and a statement limit, the server's idle-in-transaction setting. */
    Timeouts(@Nullable Duration lock, @Nullable Duration statement) {
      this(lock, statement, null);
    }

    boolean any() {
      return lock != null || statement != null || idleInTransaction != null;
    }
  }

  /** Chooses the time limits of each operation, by its name; the hook through which a store bounds waits. */
  @FunctionalInterface
  interface TimeoutPolicy {
    /** No limits for any operation. */
    TimeoutPolicy NONE = operation -> Timeouts.NONE;

    Timeouts of(String operation);
  }

  /**
   * How a runner retries and bounds its operations.
   *
   * @param maxTries tries of an operation, the first included (at least 1)
   * @param retryable the SQLSTATEs that re-run an operation (always including {@link #CONTENTION})
   * @param timeouts the time limits of each operation
   */
  record Policy(int maxTries, Set<String> retryable, TimeoutPolicy timeouts) {
    Policy {
      java.util.HashSet<String> all = new java.util.HashSet<>(CONTENTION);
      all.addAll(retryable);
      retryable = Set.copyOf(all);
    }

    /** Re-runs on contention only, {@link #MAX_TRIES} tries, no time limits. */
    static Policy standard() {
      return new Policy(MAX_TRIES, CONTENTION, TimeoutPolicy.NONE);
    }

    Policy alsoRetrying(String... sqlStates) {
      java.util.HashSet<String> all = new java.util.HashSet<>(retryable);
      all.addAll(Set.of(sqlStates));
      return new Policy(maxTries, all, timeouts);
    }

    Policy withMaxTries(int tries) {
      return new Policy(tries, retryable, timeouts);
    }

    Policy withTimeouts(TimeoutPolicy policy) {
      return new Policy(maxTries, retryable, policy);
    }
  }

  /**
   * Why an operation failed.
   *
   * @param operation the operation's name, as the store passed it
   * @param kind what happened
   * @param tries how many times the operation ran
   * @param cause the database error, if any (none for contention signalled by {@link #rerun()})
   */
  record Failure(String operation, Kind kind, int tries, @Nullable SQLException cause) {

    /** What happened. */
    enum Kind {
      /** No connection could be had; nothing was done. */
      NO_CONNECTION,
      /** The connection was lost before the commit was sent; the server rolled the transaction back. */
      LOST_BEFORE_COMMIT,
      /** The connection was lost during the commit; the outcome is unknown. */
      LOST_DURING_COMMIT,
      /** The connection was lost during an auto-committed statement, its own commit; the outcome is unknown. */
      LOST_DURING_STATEMENT,
      /** A lock or statement timeout of the operation was reached (or the statement was cancelled); rolled back. */
      TIMED_OUT,
      /** Retryable failures went on for every try. */
      CONTENDED,
      /** A statement failed for another reason; the transaction was rolled back. */
      FAILED
    }

    /** Whether the database could not be reached (no connection, or the connection was lost). */
    boolean unavailable() {
      return kind == Kind.NO_CONNECTION || kind == Kind.LOST_BEFORE_COMMIT || kind == Kind.LOST_DURING_COMMIT
          || kind == Kind.LOST_DURING_STATEMENT;
    }

    /**
     * Whether the failure is transient, so the operation may be tried again: the database could not be
     * reached, or a time limit was reached (a stalled lock holder, a slow statement). When
     * {@link #mayHaveCommitted()} the caller re-reads, or retries an operation whose repetition is harmless.
     */
    boolean retryable() {
      return unavailable() || kind == Kind.TIMED_OUT;
    }

    /** Whether the operation's change may have been committed. */
    boolean mayHaveCommitted() {
      return kind == Kind.LOST_DURING_COMMIT || kind == Kind.LOST_DURING_STATEMENT;
    }

    /** The SQLSTATE of the database error, or null. */
    @Nullable String sqlState() {
      return cause == null ? null : cause.getSQLState();
    }

    /**
     * The driver's message on one line (the server's detail, hint and context lines joined with spaces), or a
     * short note when there is no database error.
     */
    String driverMessage() {
      return cause == null ? "(no database error)" : String.valueOf(cause.getMessage()).strip()
          .replaceAll("\\s*\\R\\s*", " ");
    }

    /** {@code SQLSTATE <code>: <driver message>}. */
    String error() {
      return "SQLSTATE " + sqlState() + ": " + driverMessage();
    }

    /** What happened to the connection, for a message: e.g. {@code the database connection was lost ...}. */
    String situation() {
      return switch (kind) {
        case NO_CONNECTION -> "could not get a database connection";
        case LOST_BEFORE_COMMIT -> cause != null && hasState(cause, Set.of("25P03"))
            ? "the server ended the session because its transaction sat idle longer than the idle-in-transaction"
                + " timeout (the process stalled mid-operation)"
            : "the database connection was lost before the commit";
        case LOST_DURING_COMMIT -> "the database connection was lost during the commit";
        case LOST_DURING_STATEMENT -> "the database connection was lost during its one-statement fast path,"
            + " which commits on its own";
        case TIMED_OUT -> "55P03".equals(sqlState())
            ? "it waited for a lock longer than its lock timeout (another session holds the lock and is stalled"
                + " or slow)"
            : "a statement ran longer than its statement timeout, or was cancelled";
        case CONTENDED -> "it did not settle after " + tries + " tries under contention";
        case FAILED -> "a statement failed";
      };
    }

    /** What it means for the change, for a message. */
    String consequence() {
      return switch (kind) {
        case NO_CONNECTION -> "nothing was done, retry later";
        case LOST_BEFORE_COMMIT -> "the database rolled the transaction back, nothing changed, retry the operation";
        case LOST_DURING_COMMIT, LOST_DURING_STATEMENT -> "the outcome is unknown: the change may have been"
            + " committed, so re-read before acting";
        case TIMED_OUT -> "the transaction was rolled back, nothing changed, retry the operation";
        case CONTENDED, FAILED -> "the transaction was rolled back, nothing changed";
      };
    }
  }

  /** Turns a failure into the store's own exception. */
  @FunctionalInterface
  interface Failures {
    RuntimeException exception(Failure failure);
  }

  /** The signal a unit of work raises to re-run its operation: a concurrent writer won a race to re-check. */
  static final class Rerun extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private Rerun() {
      super(null, null, false, false);
    }
  }

  private final DataSource dataSource;
  private final Policy policy;
  private final Failures failures;

  PgTransactions(DataSource dataSource, Policy policy, Failures failures) {
    this.dataSource = dataSource;
    this.policy = policy;
    this.failures = failures;
  }

  /** The signal to throw from a unit of work to re-run the operation (counted as one try). */
  static Rerun rerun() {
    return new Rerun(); // no stack trace, so it costs an allocation only
  }

  /** The runner's policy. */
  Policy policy() {
    return policy;
  }

  /**
   * Runs an operation as one transaction.
   *
   * @param operation its name, for messages
   * @param work the work
   * @return the work's result
   * @throws RuntimeException the store's exception for a failure, or what the work threw
   */
  <T> T inTransaction(String operation, Work<T> work) {
    return run(operation, null, work);
  }

  /**
   * Runs an operation: first {@code statement} as one auto-committed statement (atomic on its own; it returns
   * null and writes nothing when it does not apply), then, when it returned null, {@code work} as one
   * transaction. With a time limit for the operation both run in that transaction.
   *
   * @param operation its name, for messages
   * @param statement the one-statement attempt, or null
   * @param work the full work
   * @return the statement's result, or the work's
   */
  <T> T run(String operation, @Nullable OneStatement<T> statement, Work<T> work) {
    Timeouts limits = policy.timeouts().of(operation);
    boolean statementFailed = false;
    for (int attempt = 1; ; attempt++) {
      Connection c;
      try {
        c = dataSource.getConnection();
      } catch (SQLException e) {
        throw failures.exception(new Failure(operation, Failure.Kind.NO_CONNECTION, attempt, e));
      }
      boolean selfCommitting = false;
      boolean committing = false;
      boolean inStatement = false;
      try {
        OneStatement<T> first = statementFailed ? null : statement;
        if (first != null && !limits.any()) {
          c.setAutoCommit(true);
          selfCommitting = true;
          inStatement = true;
          T quick = first.run(c);
          inStatement = false;
          selfCommitting = false;
          if (quick != null) {
            return quick;
          }
          first = null;
        }
        c.setAutoCommit(false);
        limit(c, limits);
        T result = null;
        if (first != null) {
          inStatement = true;
          result = first.run(c);
          inStatement = false;
        }
        if (result == null) {
          result = work.run(c);
        }
        committing = true;
        c.commit();
        return result;
      } catch (Rerun e) {
        rollbackQuietly(c, e);
        if (attempt >= policy.maxTries()) {
          throw failures.exception(new Failure(operation, Failure.Kind.CONTENDED, attempt, null));
        }
      } catch (SQLException e) {
        rollbackQuietly(c, e);
        statementFailed |= inStatement;
        Failure.Kind kind = kind(e, selfCommitting, committing, attempt);
        if (kind != null) {
          throw failures.exception(new Failure(operation, kind, attempt, e));
        }
      } catch (RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        closeQuietly(c);
      }
    }
  }

  /**
   * Runs work on a connection in auto-commit mode (for statements that cannot run in a transaction, such
   * as {@code VACUUM}); not re-run.
   *
   * @param operation its name, for messages
   * @param work the work
   * @return the work's result
   */
  <T> T autoCommitted(String operation, Work<T> work) {
    Connection c;
    try {
      c = dataSource.getConnection();
    } catch (SQLException e) {
      throw failures.exception(new Failure(operation, Failure.Kind.NO_CONNECTION, 1, e));
    }
    try {
      c.setAutoCommit(true);
      return work.run(c);
    } catch (SQLException e) {
      Failure.Kind kind = connectionLost(e) ? Failure.Kind.LOST_DURING_STATEMENT
          : isTimeout(e) ? Failure.Kind.TIMED_OUT : Failure.Kind.FAILED;
      throw failures.exception(new Failure(operation, kind, 1, e));
    } finally {
      closeQuietly(c);
    }
  }

  /** What a failure of a try means, or null when the operation runs again. */
  private Failure.@Nullable Kind kind(SQLException e, boolean selfCommitting, boolean committing, int attempt) {
    if (hasState(e, ENDED_IDLE)) {
      return Failure.Kind.LOST_BEFORE_COMMIT;
    }
    if (connectionLost(e)) {
      return selfCommitting ? Failure.Kind.LOST_DURING_STATEMENT
          : committing ? Failure.Kind.LOST_DURING_COMMIT : Failure.Kind.LOST_BEFORE_COMMIT;
    }
    if (isTimeout(e)) {
      return Failure.Kind.TIMED_OUT;
    }
    String state = e.getSQLState();
    if (state == null || !policy.retryable().contains(state)) {
      return Failure.Kind.FAILED;
    }
    return attempt >= policy.maxTries() ? Failure.Kind.CONTENDED : null;
  }

  private static boolean hasState(SQLException e, Set<String> states) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null && states.contains(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private static boolean isTimeout(SQLException e) {
    return e.getSQLState() != null && TIMED_OUT.contains(e.getSQLState());
  }

  /** Whether an error means the session is gone (rather than a statement failing in a live session). */
  static boolean connectionLost(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("08") || SESSION_ENDED.contains(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  /** Sets the operation's time limits for the transaction just begun ({@code SET LOCAL}). */
  private static void limit(Connection c, Timeouts limits) throws SQLException {
    if (!limits.any()) {
      return;
    }
    StringBuilder sql = new StringBuilder();
    if (limits.lock() != null) {
      sql.append("SET LOCAL lock_timeout = ").append(millis(limits.lock())).append(';');
    }
    if (limits.statement() != null) {
      sql.append("SET LOCAL statement_timeout = ").append(millis(limits.statement())).append(';');
    }
    if (limits.idleInTransaction() != null) {
      sql.append("SET LOCAL idle_in_transaction_session_timeout = ").append(millis(limits.idleInTransaction()))
          .append(';');
    }
    try (Statement st = c.createStatement()) {
      st.execute(sql.toString());
    }
  }

  /** A positive number of milliseconds, rounded up (0 would switch the limit off), at most PostgreSQL's. */
  private static long millis(Duration d) {
    long ms = d.toMillis() + (d.minusMillis(d.toMillis()).isZero() ? 0 : 1);
    return Math.min(Integer.MAX_VALUE, Math.max(1, ms));
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // The pool discards a broken connection; the operation's outcome is already decided.
    }
  }

  /**
   * Rolls back the open transaction; an auto-committed statement left none (it was its own transaction),
   * and the driver would refuse a rollback there with an error that would only clutter the real cause.
   */
  private static void rollbackQuietly(Connection c, Exception cause) {
    try {
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }
}

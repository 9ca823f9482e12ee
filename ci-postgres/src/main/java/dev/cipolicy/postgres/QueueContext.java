package dev.cipolicy.postgres;

import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * What the parts of {@link PostgresQueueStore} share: where its tables are, their SQL text, the row mapping,
 * the transaction runner with the queue's retry policy and its wording of failures, and the store's clock:
 * the database server's, or in this module's tests a given one.
 */
final class QueueContext {

  final PostgresQueueOptions options;
  final String schema;
  final QueueSql sql;
  final QueueRows rows;
  final PgTransactions tx;
  final DataSource dataSource;
  /** The store's clock when a test gives one; null for the database server's clock. */
  private final @Nullable InstantSource clock;

  /**
   * The context of a store.
   *
   * @param dataSource the database
   * @param options the schema and table prefix
   * @param policy the runner's policy; the queue's operations re-check their conditions, so a unique
   *     violation (a concurrent writer won) re-runs them too; every operation gets the options' time limits
   * @param clock the store's clock, or null for the database server's
   */
  QueueContext(DataSource dataSource, PostgresQueueOptions options, PgTransactions.Policy policy,
      @Nullable InstantSource clock) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.options = options;
    this.schema = options.schema();
    this.sql = new QueueSql(options);
    this.rows = new QueueRows(options);
    PgTransactions.Timeouts limits = options.timeouts().runnerTimeouts();
    this.tx = new PgTransactions(dataSource, policy.withTimeouts(operation -> limits),
        failure -> exception(options, failure));
  }

  /**
   * The store's now, read once per operation on the operation's connection: the server's
   * {@code clock_timestamp()} (microseconds), or the test clock's instant truncated to microseconds.
   */
  Instant now(Connection c) throws SQLException {
    if (clock != null) {
      return QueueStore.truncate(clock.instant());
    }
    try (PreparedStatement st = c.prepareStatement("SELECT clock_timestamp()"); ResultSet rs = st.executeQuery()) {
      rs.next();
      return QueueStore.truncate(Objects.requireNonNull(PgValues.instant(rs, 1)));
    }
  }

  /**
   * The now to bind in a one-statement fast path whose SQL reads {@code coalesce(?, statement_timestamp())}:
   * null for the server's clock (read by the statement itself, without a statement of its own), else the
   * test clock's instant.
   */
  @Nullable Instant boundNow() {
    return clock == null ? null : QueueStore.truncate(clock.instant());
  }

  /** The queue's retry policy: contention and unique violations re-run an operation. */
  static PgTransactions.Policy policy() {
    return PgTransactions.Policy.standard().alsoRetrying(PgTransactions.UNIQUE_VIOLATION);
  }

  /**
   * The queue's exception for a failed operation: the retryable {@link QueueStoreUnavailableException} when
   * the database could not be reached or a time limit was reached, naming the operation and whether the
   * change may have been committed; otherwise a {@link QueueStoreException} naming the operation, the tables
   * and the database error.
   */
  static QueueStoreException exception(PostgresQueueOptions options, PgTransactions.Failure f) {
    String where = f.operation() + " on " + options.display("*");
    if (f.kind() == PgTransactions.Failure.Kind.TIMED_OUT) {
      return new QueueStoreUnavailableException(f.operation(), false, where + " timed out: " + f.situation() + " ("
          + f.error() + "); " + f.consequence(), Objects.requireNonNull(f.cause()));
    }
    if (f.unavailable()) {
      return new QueueStoreUnavailableException(f.operation(), f.mayHaveCommitted(), where + ": " + f.situation()
          + " (" + f.error() + "); " + f.consequence() + (f.mayHaveCommitted()
              ? " (a fenced retry is safe: it reports a stale lease if the first one took effect)" : ""),
          Objects.requireNonNull(f.cause()));
    }
    return switch (f.kind()) {
      case CONTENDED -> new QueueStoreException(where + " did not settle after " + f.tries()
          + " tries under contention" + (f.cause() == null ? "" : " (last " + f.error() + ")"));
      default -> new QueueStoreException(where + " failed (SQLSTATE " + f.sqlState() + "): " + f.driverMessage(),
          Objects.requireNonNull(f.cause()));
    };
  }

  /** A store failure that a row changed under its lock (edited by hand). */
  QueueStoreException changedUnderLock(String what) {
    return new QueueStoreException("could not " + what + " in schema " + schema
        + ": a row changed under its lock (edited by hand?)");
  }
}

package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.spi.QueueStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transaction runner both PostgreSQL stores share, against the real server: what it re-runs, how it
 * reports a lost connection (before, during and without a commit), and the per-operation time limits.
 */
class PgTransactionsTest {

  private static @Nullable PgTestDatabase db;

  /** The failure a runner reported, thrown as an exception that carries it. */
  static final class Reported extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient PgTransactions.Failure failure;

    Reported(PgTransactions.Failure failure) {
      super(failure.kind() + " after " + failure.tries() + " tries: " + failure.situation());
      this.failure = failure;
    }
  }

  @BeforeAll
  static void open() {
    db = PgTestDatabase.open("pgtx", 4);
    db.exec("CREATE SCHEMA " + db.schema);
    db.exec("CREATE TABLE " + db.schema + ".t (id int PRIMARY KEY, n int NOT NULL)");
    db.exec("INSERT INTO " + db.schema + ".t VALUES (1, 0)");
  }

  @AfterAll
  static void close() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  private static PgTestDatabase db() {
    assertThat(db).isNotNull();
    return db;
  }

  private static PgTransactions runner(DataSource ds, PgTransactions.Policy policy) {
    return new PgTransactions(ds, policy, Reported::new);
  }

  private static PgTransactions.Failure reported(Runnable call) {
    List<PgTransactions.Failure> seen = new ArrayList<>();
    assertThatThrownBy(call::run).isInstanceOfSatisfying(Reported.class, e -> seen.add(e.failure));
    return seen.get(0);
  }

  private static int counter(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT n FROM " + db().schema + ".t WHERE id = 1");
        ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static void bump(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("UPDATE " + db().schema + ".t SET n = n + 1 WHERE id = 1")) {
      st.executeUpdate();
    }
  }

  @Test
  void serializationFailuresAndDeadlocksReRunTheWholeTransaction() {
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard());
    AtomicInteger tries = new AtomicInteger();
    int before = tx.inTransaction("read", PgTransactionsTest::counter);
    int after = tx.inTransaction("bump", c -> {
      bump(c);
      int n = tries.incrementAndGet();
      if (n < 3) {
        throw new SQLException("try " + n, n == 1 ? "40001" : "40P01");
      }
      return counter(c);
    });
    assertThat(tries).hasValue(3);
    assertThat(after).as("the rolled-back tries left nothing").isEqualTo(before + 1);
  }

  @Test
  void otherFailuresAreReportedOnceAndRolledBack() {
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard());
    int before = tx.inTransaction("read", PgTransactionsTest::counter);
    AtomicInteger tries = new AtomicInteger();
    PgTransactions.Failure unique = reported(() -> tx.inTransaction("insert", c -> {
      tries.incrementAndGet();
      bump(c);
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + db().schema + ".t VALUES (1, 9)")) {
        return st.executeUpdate();
      }
    }));
    assertThat(unique.kind()).isEqualTo(PgTransactions.Failure.Kind.FAILED);
    assertThat(unique.sqlState()).isEqualTo("23505");
    assertThat(unique.unavailable()).isFalse();
    assertThat(tries).as("a unique violation is not re-run unless the store asks").hasValue(1);
    assertThat(tx.inTransaction("read", PgTransactionsTest::counter)).isEqualTo(before);

    PgTransactions rerunning = runner(db().dataSource, PgTransactions.Policy.standard()
        .alsoRetrying(PgTransactions.UNIQUE_VIOLATION).withMaxTries(4));
    PgTransactions.Failure contended = reported(() -> rerunning.inTransaction("insert", c -> {
      tries.incrementAndGet();
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + db().schema + ".t VALUES (1, 9)")) {
        return st.executeUpdate();
      }
    }));
    assertThat(tries).hasValue(5);
    assertThat(contended.kind()).isEqualTo(PgTransactions.Failure.Kind.CONTENDED);
    assertThat(contended.tries()).isEqualTo(4);
    assertThat(contended.situation()).isEqualTo("it did not settle after 4 tries under contention");
  }

  @Test
  void aRerunSignalRunsTheOperationAgainUpToItsTries() {
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard().withMaxTries(3));
    AtomicInteger tries = new AtomicInteger();
    String settled = tx.inTransaction("race", c -> {
      if (tries.incrementAndGet() < 3) {
        throw PgTransactions.rerun();
      }
      return "settled";
    });
    assertThat(settled).isEqualTo("settled");
    PgTransactions.Failure failure = reported(() -> tx.inTransaction("race", c -> {
      throw PgTransactions.rerun();
    }));
    assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.CONTENDED);
    assertThat(failure.cause() == null).as("no database error").isTrue();
  }

  @Test
  void noConnectionIsReportedAsUnavailableWithNothingDone() {
    PgTransactions tx = runner(PgTestDatabase.closedPort(), PgTransactions.Policy.standard());
    AtomicInteger ran = new AtomicInteger();
    PgTransactions.Failure failure = reported(() -> tx.inTransaction("read", c -> ran.incrementAndGet()));
    assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.NO_CONNECTION);
    assertThat(failure.unavailable()).isTrue();
    assertThat(failure.mayHaveCommitted()).isFalse();
    assertThat(failure.sqlState()).isEqualTo("08001");
    assertThat(failure.consequence()).isEqualTo("nothing was done, retry later");
    assertThat(ran).hasValue(0);
  }

  @Test
  void aSessionEndedBeforeTheCommitIsUnavailableAndRolledBackNeverReRun() {
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard());
    int before = tx.inTransaction("read", PgTransactionsTest::counter);
    AtomicInteger tries = new AtomicInteger();
    PgTransactions.Failure failure = reported(() -> tx.inTransaction("bump", c -> {
      tries.incrementAndGet();
      bump(c);
      terminateOwnSession(c);
      return 0;
    }));
    assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.LOST_BEFORE_COMMIT);
    assertThat(failure.sqlState()).isEqualTo("57P01");
    assertThat(failure.mayHaveCommitted()).isFalse();
    assertThat(tries).hasValue(1);
    assertThat(tx.inTransaction("read", PgTransactionsTest::counter)).isEqualTo(before);
  }

  @Test
  void aSessionEndedDuringAnAutoCommittedStatementLeavesTheOutcomeUnknown() {
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard());
    AtomicInteger full = new AtomicInteger();
    PgTransactions.Failure failure = reported(() -> tx.run("claim", c -> {
      assertThat(c.getAutoCommit()).isTrue();
      terminateOwnSession(c);
      return null;
    }, c -> full.incrementAndGet()));
    assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.LOST_DURING_STATEMENT);
    assertThat(failure.mayHaveCommitted()).isTrue();
    assertThat(failure.consequence()).startsWith("the outcome is unknown");
    assertThat(full).as("the full transaction does not run after a lost connection").hasValue(0);
  }

  @Test
  void aConnectionLostDuringTheCommitLeavesTheOutcomeUnknown() {
    DataSource failingCommit = PgTestDatabase.commitFailsWith(db().dataSource, "08006");
    PgTransactions tx = runner(failingCommit, PgTransactions.Policy.standard());
    PgTransactions.Failure failure = reported(() -> tx.inTransaction("bump", c -> {
      bump(c);
      return 0;
    }));
    assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.LOST_DURING_COMMIT);
    assertThat(failure.mayHaveCommitted()).isTrue();
    assertThat(failure.situation()).isEqualTo("the database connection was lost during the commit");
  }

  @Test
  void aFailedAutoCommittedStatementIsNotTriedAgain() {
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard());
    AtomicInteger fast = new AtomicInteger();
    AtomicInteger full = new AtomicInteger();
    String result = tx.run("complete", c -> {
      fast.incrementAndGet();
      throw new SQLException("conflict", "40001");
    }, c -> {
      assertThat(c.getAutoCommit()).isFalse();
      full.incrementAndGet();
      return "full path";
    });
    assertThat(result).isEqualTo("full path");
    assertThat(fast).hasValue(1);
    assertThat(full).hasValue(1);
    String quick = tx.run("complete", c -> "fast path", c -> "full path");
    assertThat(quick).isEqualTo("fast path");
  }

  @Test
  void aLockTimeoutEndsAWaitingOperationAndDoesNotLeakIntoThePool() throws Exception {
    PgTransactions.TimeoutPolicy limits = op -> op.equals("bounded")
        ? new PgTransactions.Timeouts(Duration.ofMillis(200), null) : PgTransactions.Timeouts.NONE;
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard().withTimeouts(limits));
    try (Connection holder = db().dataSource.getConnection()) {
      holder.setAutoCommit(false);
      try (PreparedStatement st = holder.prepareStatement("SELECT n FROM " + db().schema + ".t WHERE id = 1"
          + " FOR UPDATE")) {
        st.executeQuery().close();
      }
      long started = System.nanoTime();
      PgTransactions.Failure failure = reported(() -> tx.inTransaction("bounded", c -> {
        bump(c);
        return 0;
      }));
      assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.TIMED_OUT);
      assertThat(failure.sqlState()).isEqualTo("55P03");
      assertThat(failure.unavailable()).isFalse();
      assertThat(failure.retryable()).as("a reached limit is transient").isTrue();
      assertThat(failure.mayHaveCommitted()).isFalse();
      assertThat(failure.tries()).as("a lock timeout is not re-run by the runner").isEqualTo(1);
      assertThat(failure.situation()).contains("lock timeout");
      assertThat(failure.driverMessage()).doesNotContain("\n");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
      holder.rollback();
    }
    for (int i = 0; i < 8; i++) { // every pooled connection: the limit ended with its transaction
      String lockTimeout = tx.inTransaction("unbounded", c -> setting(c, "lock_timeout"));
      assertThat(lockTimeout).isEqualTo("0");
    }
  }

  @Test
  void aStatementTimeoutEndsALongStatementAndAppliesToTheOneStatementPathToo() {
    PgTransactions.TimeoutPolicy limits = op -> new PgTransactions.Timeouts(null, Duration.ofMillis(100));
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard().withTimeouts(limits));
    PgTransactions.Failure failure = reported(() -> tx.inTransaction("sleep", c -> {
      try (PreparedStatement st = c.prepareStatement("SELECT pg_sleep(5)")) {
        return st.execute();
      }
    }));
    assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.TIMED_OUT);
    assertThat(failure.sqlState()).isEqualTo("57014");
    String seen = tx.run("claim", c -> {
      assertThat(c.getAutoCommit()).as("with a limit the statement runs in the transaction").isFalse();
      return setting(c, "statement_timeout");
    }, c -> "full path");
    assertThat(seen).isEqualTo("100ms");
  }

  @Test
  void everyLimitIsSetForTheTransactionOnlyInOneStatement() {
    PgTransactions.TimeoutPolicy limits = op -> new PgTransactions.Timeouts(Duration.ofMillis(1500),
        Duration.ofSeconds(7), Duration.ofNanos(2_500_000_001L));
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard().withTimeouts(limits));
    List<String> inside = tx.inTransaction("read", c -> List.of(setting(c, "lock_timeout"),
        setting(c, "statement_timeout"), setting(c, "idle_in_transaction_session_timeout")));
    assertThat(inside).as("set, a fraction of a millisecond rounded up").containsExactly("1500ms", "7s", "2501ms");
    PgTransactions plain = runner(db().dataSource, PgTransactions.Policy.standard());
    for (int i = 0; i < 8; i++) {
      String idle = plain.inTransaction("read", c -> setting(c, "idle_in_transaction_session_timeout"));
      assertThat(idle).isEqualTo("0");
    }
  }

  @Test
  void aTransactionIdlePastItsLimitLosesItsSessionRolledBackAndIsRetryable() {
    PgTransactions.TimeoutPolicy limits = op -> new PgTransactions.Timeouts(null, null, Duration.ofMillis(300));
    PgTransactions tx = runner(db().dataSource, PgTransactions.Policy.standard().withTimeouts(limits));
    int before = tx.inTransaction("read", PgTransactionsTest::counter);
    AtomicInteger tries = new AtomicInteger();
    PgTransactions.Failure failure = reported(() -> tx.inTransaction("bump", c -> {
      tries.incrementAndGet();
      bump(c);
      try {
        Thread.sleep(1500); // the process stalls mid-transaction, holding the row lock
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      bump(c);
      return 0;
    }));
    System.out.println("PgTransactionsTest: idle in transaction past its limit: " + failure.error());
    assertThat(failure.kind()).isEqualTo(PgTransactions.Failure.Kind.LOST_BEFORE_COMMIT);
    assertThat(failure.sqlState()).isEqualTo("25P03");
    assertThat(failure.mayHaveCommitted()).isFalse();
    assertThat(failure.retryable()).isTrue();
    assertThat(failure.situation()).contains("idle-in-transaction timeout");
    assertThat(tries).as("a lost session is not re-run by the runner").hasValue(1);
    assertThat(tx.inTransaction("read", PgTransactionsTest::counter)).as("rolled back").isEqualTo(before);
  }

  @Test
  void theStoresKeepTimestampsAtThePrecisionOfTheQueueContract() {
    assertThat(PgValues.TIMESTAMPTZ_PRECISION).isEqualTo(QueueStore.PRECISION);
  }

  private static String setting(Connection c, String name) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT current_setting(?)")) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private static void terminateOwnSession(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT pg_terminate_backend(pg_backend_pid())")) {
      st.execute();
    }
  }
}

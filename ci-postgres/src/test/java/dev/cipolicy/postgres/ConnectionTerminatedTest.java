package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.tck.SettableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A collector's connection terminated with {@code pg_terminate_backend} in the middle of a claim and of a
 * completion. The test makes the moment deterministic: it locks the collector's registry row, so the
 * operation, having already written its job and lease rows, waits on that lock inside its transaction; the
 * test checks (in {@code pg_locks}) that the writes happened, terminates exactly that backend (found by the
 * collector pool's {@code application_name}), and releases the lock. The collector gets a
 * {@link QueueStoreUnavailableException} naming the operation and saying that it was rolled back; no job is
 * lost, and a retry completes the job exactly once (an audit trigger counts the committed state changes).
 */
class ConnectionTerminatedTest {

  private PgTestDatabase db;
  private HikariDataSource collectorPool;
  private String application;
  private PostgresQueueStore store;
  private final SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
  private final QueueSettings settings = QueueSettings.builder().maxInProgress(1).leaseDuration(Duration.ofMinutes(1))
      .collectorTimeout(Duration.ofMinutes(5)).backfill(false).addBenchmarkGroups("compile")
      .addCollectorTargets(CollectorTarget.required("x86")).build();
  private JobQueue site;
  private JobQueue collector;
  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("terminated", 4);
    PostgresQueueStore.createOnClock(db.dataSource, db.schema, clock);
    db.exec("CREATE TABLE " + db.schema + ".job_audit (job_id bigint NOT NULL, old_state text NOT NULL,"
        + " new_state text NOT NULL, attempt integer NOT NULL)");
    db.exec("CREATE FUNCTION " + db.schema + ".audit_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        + " INSERT INTO " + db.schema + ".job_audit VALUES (NEW.id, OLD.state, NEW.state, NEW.attempt);"
        + " RETURN NULL; END $$");
    db.exec("CREATE TRIGGER audit AFTER UPDATE OF state ON " + db.schema + ".queue_jobs FOR EACH ROW"
        + " WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION " + db.schema + ".audit_job()");
    application = "collector-" + db.schema;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url);
    config.setUsername(db.user);
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(5000);
    config.setPoolName(application);
    config.addDataSourceProperty("ApplicationName", application);
    collectorPool = new HikariDataSource(config);
    store = PostgresQueueStore.attachOnClock(db.dataSource, db.schema, clock);
    site = JobQueue.of(store, settings);
    // No limits of the store's own: the collector's operation must outwait the lock the test holds whatever the
    // machine's load, and its fast paths run auto-committed (with limits they run inside a transaction, so a
    // connection lost there is simply rolled back; PgTransactionsTest covers that case).
    collector = JobQueue.of(PostgresQueueStore.attachOnClock(collectorPool, PostgresQueueOptions.inSchema(db.schema)
        .withTimeouts(PostgresTimeouts.serverSettings()), clock), settings);
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
    if (collectorPool != null) {
      collectorPool.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  @Timeout(60)
  void terminatedDuringAClaimTheClaimIsRolledBackAndARetryCompletesTheJobOnce() throws Exception {
    Request request = site.submit(NewRequest.master("sha1", null)).request();
    site.registerCollector("c1", "x86", true);
    site.tick();
    Job queued = store.jobs(request.id()).get(0);
    clock.advance(Duration.ofSeconds(1));

    QueueStoreUnavailableException lost = terminateMidOperation(() -> collector.claim("c1"), "queue_leases");
    assertThat(lost.operation()).isEqualTo("claim");
    // The collector's store has not learnt c1's tag (c1 registered through the site), so the claim runs its
    // full transaction, which the termination rolls back before the commit.
    assertThat(lost.mayHaveCommitted()).isFalse();
    assertThat(lost).hasMessageStartingWith("claim on " + db.schema + ".queue_*: the database connection was lost"
        + " before the commit").hasMessageContaining("57P01").hasMessageContaining("rolled the transaction back");

    // Nothing of the claim survived: the job is queued, never attempted, and no lease exists.
    Job after = store.job(queued.id()).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.QUEUED);
    assertThat(after.attempt()).isZero();
    assertThat(count("SELECT count(*) FROM " + db.schema + ".queue_leases")).isZero();
    assertThat(count("SELECT count(*) FROM " + db.schema + ".job_audit")).isZero();

    // The collector retries through its pool (a fresh connection) and completes the job, once.
    ClaimResult retried = collector.claim("c1");
    assertThat(retried.claims()).hasSize(1);
    Claim claim = retried.claims().get(0);
    assertThat(claim.job().id()).isEqualTo(queued.id());
    assertThat(claim.lease().attempt()).isEqualTo(1);
    assertThat(collector.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(collector.complete(claim.lease()).status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertCompletedOnce(queued, 1);
    assertThat(site.tick().completed()).extracting(Request::id).containsExactly(request.id());
  }

  @Test
  @Timeout(60)
  void terminatedDuringACompletionTheJobStaysLeasedAndARetryCompletesItOnce() throws Exception {
    Request request = site.submit(NewRequest.master("sha1", null)).request();
    collector.registerCollector("c1", "x86", true);
    site.tick();
    clock.advance(Duration.ofSeconds(1));
    Claim claim = collector.claim("c1").claims().get(0);
    clock.advance(Duration.ofSeconds(1));

    QueueStoreUnavailableException lost = terminateMidOperation(() -> collector.complete(claim.lease()),
        "queue_jobs");
    assertThat(lost.operation()).isEqualTo("complete");
    // A completion first tries one auto-committed statement; a connection lost during it cannot tell whether
    // the server committed it, so the store says the outcome is unknown and the caller re-reads.
    assertThat(lost.mayHaveCommitted()).isTrue();
    assertThat(lost).hasMessageContaining("complete on " + db.schema + ".queue_*")
        .hasMessageContaining("one-statement fast path").hasMessageContaining("re-read before acting");

    // Re-read: the completion was rolled back, the job is still leased under the same lease.
    Job after = store.job(claim.job().id()).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.LEASED);
    assertThat(after.lease()).contains(claim.lease());
    assertThat(count("SELECT count(*) FROM " + db.schema + ".job_audit WHERE new_state = 'SUCCEEDED'")).isZero();

    // A retry with the same lease completes it; a second one is refused.
    LeaseResult retried = collector.complete(claim.lease());
    assertThat(retried.status()).isEqualTo(LeaseStatus.OK);
    assertThat(collector.complete(claim.lease()).status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertCompletedOnce(claim.job(), 1);
    assertThat(site.tick().completed()).extracting(Request::id).containsExactly(request.id());
    assertThat(store.request(request.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
  }

  @Test
  @Timeout(60)
  void aPooledConnectionTerminatedWhileIdleCostsAtMostOneOperation() throws Exception {
    collector.registerCollector("c1", "x86", true);
    long terminated = 0;
    try (Connection c = db.dataSource.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?")) {
      st.setString(1, application);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        terminated = rs.getLong(1);
      }
    }
    assertThat(terminated).as("idle collector connections terminated").isPositive();
    int failures = 0;
    for (int i = 0; i < 2; i++) {
      try {
        assertThat(collector.collectorHeartbeat("c1").status()).isEqualTo(CollectorResult.Status.OK);
      } catch (QueueStoreUnavailableException e) {
        failures++;
        assertThat(e.operation()).isEqualTo("collectorHeartbeat");
        assertThat(e.mayHaveCommitted()).isFalse();
      }
    }
    assertThat(failures).as("operations lost to the dead pooled connection").isLessThanOrEqualTo(1);
    assertThat(collector.collectorHeartbeat("c1").status()).isEqualTo(CollectorResult.Status.OK);
  }

  /**
   * Runs the operation while the test holds the collector row's lock, waits until the operation's backend
   * is blocked on it, checks that the backend has written to {@code table} in its open transaction,
   * terminates it, releases the lock, and returns the exception the operation ended with.
   */
  private QueueStoreUnavailableException terminateMidOperation(Supplier<?> operation, String table)
      throws Exception {
    Future<?> running;
    int pid;
    try (Connection holder = db.dataSource.getConnection()) {
      holder.setAutoCommit(false);
      // FOR NO KEY UPDATE, as an update of the row takes it: a claim's key-share read of its collector passes
      // (a FOR UPDATE, as a retirement's, would stop it before it wrote anything), its heartbeat refresh waits.
      try (PreparedStatement lock = holder.prepareStatement("SELECT name FROM " + db.schema
          + ".queue_collectors WHERE name = 'c1' FOR NO KEY UPDATE")) {
        lock.executeQuery().close();
      }
      running = executor.submit(operation::get);
      pid = blockedBackend();
      assertThat(count("SELECT count(*) FROM pg_locks WHERE pid = " + pid + " AND relation = '" + db.schema + "."
          + table + "'::regclass AND mode = 'RowExclusiveLock'"))
          .as("the operation wrote %s before it waited", table).isEqualTo(1);
      // It waits, mid-statement, on the collector row the holder locked: the refresh of the collector's
      // heartbeat, its last write. (pg_stat_activity shows only the first 1 kB of a statement, which for
      // the one-statement claim ends before its UPDATE of queue_collectors; the blocking pid says it.)
      long holderPid = count("SELECT pg_backend_pid()", holder);
      assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid
          + " AND state = 'active' AND query LIKE '%queue_collectors%' AND " + holderPid
          + " = ANY (pg_blocking_pids(" + pid + "))"))
          .as("it waits on the collector row the holder locked").isEqualTo(1);
      try (PreparedStatement kill = holder.prepareStatement("SELECT pg_terminate_backend(?)")) {
        kill.setInt(1, pid);
        try (ResultSet rs = kill.executeQuery()) {
          rs.next();
          assertThat(rs.getBoolean(1)).as("pg_terminate_backend(%d)", pid).isTrue();
        }
      }
      holder.rollback();
    }
    return PgTestDatabase.unavailableFrom(running);
  }

  /** The pid of the collector pool's backend once it waits on a lock. */
  private int blockedBackend() throws SQLException, InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < until) {
      try (Connection c = db.dataSource.getConnection(); PreparedStatement st = c.prepareStatement(
          "SELECT pid FROM pg_stat_activity WHERE application_name = ? AND wait_event_type = 'Lock'")) {
        st.setString(1, application);
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            return rs.getInt(1);
          }
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the collector's operation never waited on the held lock");
  }

  private void assertCompletedOnce(Job job, int attempt) throws SQLException {
    Job done = store.job(job.id()).orElseThrow();
    assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(done.attempt()).isEqualTo(attempt);
    assertThat(done.lease()).isEmpty();
    assertThat(count("SELECT count(*) FROM " + db.schema + ".job_audit WHERE job_id = " + job.id().value()
        + " AND new_state = 'SUCCEEDED'")).as("committed completions").isEqualTo(1);
    assertThat(count("SELECT count(*) FROM " + db.schema + ".job_audit WHERE job_id = " + job.id().value()
        + " AND old_state IN ('SUCCEEDED', 'FAILED', 'CANCELLED')")).as("changes after the end").isZero();
    assertThat(count("SELECT count(*) FROM " + db.schema + ".queue_leases")).isZero();
  }

  private long count(String sql) {
    return db.count(sql);
  }

  /** A count (or any bigint) read on the given connection, inside its transaction. */
  private static long count(String sql, Connection on) throws SQLException {
    try (PreparedStatement st = on.prepareStatement(sql); ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}

package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.RetireResult;
import dev.cipolicy.queue.spi.StartCommand;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retiring a collector while it claims a job that needs no GPU, on the real server, in deterministic
 * interleavings: one transaction is paused between its read of the collector and its write, and the other runs
 * in the gap. Whatever the order, the two agree: either the retirement reports {@code RETIRED} (no live lease)
 * and the claim leases nothing, or the claim leases the job and the retirement reports {@code RETIRING}.
 * Without the claims' {@code FOR KEY SHARE} on the collector row (which the retirement's {@code FOR UPDATE}
 * waits for, and which waits for it) each of these interleavings ended with a retired collector that the
 * retirement had reported gone holding a fresh lease.
 */
class PostgresRetireRaceTest {

  private static final String COLLECTOR = "cpu-1";
  private static final ClaimCommand CLAIM = ClaimCommand.builder().collector(COLLECTOR)
      .leaseDuration(Duration.ofMinutes(5)).build();

  private @Nullable PgTestDatabase db;
  private final ExecutorService threads = Executors.newFixedThreadPool(2);

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("retirerace", 6);
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
    if (db != null) {
      db.close();
    }
  }

  @Test
  @Timeout(60)
  void aFastPathClaimInTheMiddleOfARetirementLeasesNothing() throws Exception {
    PgTestDatabase database = db();
    // The claimer registers through its own store, which so learns the tag and tries the one-statement claim.
    PostgresQueueStore claimer = PostgresQueueStore.create(database.dataSource, database.schema);
    claimer.registerCollector(COLLECTOR, "cpu", true);
    queueOneJob(claimer);
    retireWithAClaimInItsGap(claimer);
  }

  @Test
  @Timeout(60)
  void aFullPathClaimInTheMiddleOfARetirementLeasesNothing() throws Exception {
    PgTestDatabase database = db();
    PostgresQueueStore setup = PostgresQueueStore.create(database.dataSource, database.schema);
    setup.registerCollector(COLLECTOR, "cpu", true);
    queueOneJob(setup);
    // A store that never saw the collector reads its row in a transaction first (the full claim).
    retireWithAClaimInItsGap(PostgresQueueStore.attach(database.dataSource, database.schema));
  }

  @Test
  @Timeout(60)
  void aRetirementInTheMiddleOfAClaimReportsTheLeaseTheClaimTook() throws Exception {
    PgTestDatabase database = db();
    PostgresQueueStore store = PostgresQueueStore.create(database.dataSource, database.schema);
    store.registerCollector(COLLECTOR, "cpu", true);
    queueOneJob(store);
    AtomicReference<@Nullable Future<RetireResult>> retiring = new AtomicReference<>();
    // The claim (full path: this store never saw the collector) pauses right after it read the collector as
    // active; the retirement runs meanwhile, as far as it can.
    PostgresQueueStore claimer = PostgresQueueStore.attach(PgTestDatabase.pausingAfter(database.dataSource,
        "retiring AND NOT EXISTS", () -> retiring.set(runUntilDoneOrWaiting(() -> store.retireCollector(COLLECTOR)))),
        database.schema);
    ClaimResult claim = claimer.claim(CLAIM);
    Future<RetireResult> retired = retiring.get();
    assertThat(retired).as("the claim paused after reading the collector").isNotNull();
    assertAgree(retired.get(20, TimeUnit.SECONDS), claim);
    assertThat(claim.claims()).as("the claim read the collector first, so it leases the job").hasSize(1);
  }

  /**
   * Retires the collector through a store whose retirement pauses right after it checked for live leases
   * (before it marks the row), and in that gap claims through {@code claimer}; then checks that they agree.
   */
  private void retireWithAClaimInItsGap(PostgresQueueStore claimer) throws Exception {
    PgTestDatabase database = db();
    AtomicReference<@Nullable Future<ClaimResult>> claiming = new AtomicReference<>();
    PostgresQueueStore retirer = PostgresQueueStore.attach(PgTestDatabase.pausingAfter(database.dataSource,
        "WHERE collector = ? AND expires_at > ?)", () -> claiming.set(runUntilDoneOrWaiting(() -> claimer.claim(CLAIM)))),
        database.schema);
    RetireResult retire = retirer.retireCollector(COLLECTOR);
    Future<ClaimResult> claimed = claiming.get();
    assertThat(claimed).as("the retirement paused after its check").isNotNull();
    ClaimResult claim = claimed.get(20, TimeUnit.SECONDS);
    assertAgree(retire, claim);
    assertThat(retire.status()).as("the retirement checked first, so the collector is gone").isEqualTo(
        RetireResult.Status.RETIRED);
  }

  /** The retirement's report and the claim agree, and so do the rows. */
  private void assertAgree(RetireResult retire, ClaimResult claim) {
    PgTestDatabase database = db();
    long leases = database.count("SELECT count(*) FROM " + database.schema + ".queue_leases WHERE collector = '"
        + COLLECTOR + "'");
    if (retire.status() == RetireResult.Status.RETIRED) {
      assertThat(claim.claims()).as("claims of a collector whose retirement found no live lease").isEmpty();
      assertThat(leases).as("lease rows of a collector retired with none").isZero();
    } else {
      assertThat(retire.status()).isEqualTo(RetireResult.Status.RETIRING);
      assertThat(claim.claims()).as("claims of a collector retiring with a lease").hasSize(1);
      assertThat(leases).isEqualTo(1);
    }
  }

  /**
   * Starts {@code op} on another thread and returns once it finished or the database shows one of this schema's
   * statements waiting for a lock (which only the paused transaction can hold).
   */
  private <T> Future<T> runUntilDoneOrWaiting(java.util.concurrent.Callable<T> op) {
    Future<T> running = threads.submit(op);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try {
      while (!running.isDone() && !waitingForALock() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return running;
  }

  private boolean waitingForALock() {
    PgTestDatabase database = db();
    try (Connection c = database.dataSource.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            + " AND query LIKE ?")) {
      st.setString(1, "%" + database.schema + "%");
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void queueOneJob(PostgresQueueStore store) {
    Request r = store.submit(NewRequest.master("s1", null)).request();
    store.startRequest(StartCommand.builder().requestId(r.id())
        .jobs(List.of(JobSpec.required("compile", "cpu"))).build());
  }

  private PgTestDatabase db() {
    PgTestDatabase database = db;
    if (database == null) {
      throw new IllegalStateException("no database");
    }
    return database;
  }
}

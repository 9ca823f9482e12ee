package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.gate.MetricStoreUnavailableException;
import dev.cipolicy.gate.SeriesKey;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.StartResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bounded waits: every store operation runs under the lock, statement and idle-in-transaction timeouts of its
 * options, so a session that holds the control row (or any row) and stalls blocks another site's tick for at
 * most the lock timeout, and keeps its locks for at most the idle-in-transaction timeout; a reached limit is
 * the retryable {@link QueueStoreUnavailableException}.
 */
class QueueTimeoutsTest {

  private static final Duration LOCK = Duration.ofSeconds(1);
  private static final Duration IDLE = Duration.ofSeconds(3);

  private PgTestDatabase db;
  private ExecutorService executor;

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("timeouts", 6);
    executor = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
    if (db != null) {
      db.close();
    }
  }

  private static QueueSettings settings() {
    return QueueSettings.builder().maxInProgress(1).leaseDuration(Duration.ofMinutes(1))
        .collectorTimeout(Duration.ofMinutes(1)).backfill(false).addBenchmarkGroups("compile", "runtime")
        .addCollectorTargets(CollectorTarget.required("x86")).build();
  }

  private PostgresQueueOptions options() {
    return PostgresQueueOptions.inSchema(db.schema).withTimeouts(PostgresTimeouts.defaults().withLockTimeout(LOCK)
        .withIdleInTransactionTimeout(IDLE));
  }

  @Test
  @Timeout(60)
  void aTickBehindASessionHoldingTheControlRowThrowsTheRetryableExceptionWithinTheLockTimeout() throws Exception {
    PostgresQueueStore store = PostgresQueueStore.create(db.dataSource, options());
    JobQueue site = JobQueue.of(store, settings());
    Request request = site.submit(NewRequest.master("sha1", null)).request();
    try (Connection holder = db.dataSource.getConnection()) {
      holder.setAutoCommit(false);
      try (PreparedStatement st = holder.prepareStatement("SELECT id FROM " + db.schema
          + ".queue_control WHERE id = 1 FOR UPDATE")) {
        st.executeQuery().close();
      }
      long started = System.nanoTime();
      Future<TickResult> tick = executor.submit(site::tick);
      Throwable thrown;
      try {
        TickResult result = tick.get(10, TimeUnit.SECONDS);
        throw new AssertionError("the tick started a request behind a held control row: " + result);
      } catch (TimeoutException e) {
        throw new AssertionError("the tick still waits for the control row after 10 s (no lock timeout)", e);
      } catch (ExecutionException e) {
        thrown = e.getCause();
      } finally {
        holder.rollback();
      }
      Duration waited = Duration.ofNanos(System.nanoTime() - started);
      System.out.println("QueueTimeoutsTest: a tick behind a held control row gave up after " + waited.toMillis()
          + " ms (lock timeout " + LOCK.toMillis() + " ms)");
      assertThat(thrown).isInstanceOfSatisfying(QueueStoreUnavailableException.class, e -> {
        assertThat(e.operation()).isEqualTo("startRequest");
        assertThat(e.mayHaveCommitted()).isFalse();
        assertThat(e.getMessage()).contains("lock timeout").contains("55P03").contains("retry the operation")
            .doesNotContain("\n");
      });
      assertThat(waited).isGreaterThanOrEqualTo(LOCK.minusMillis(50)).isLessThan(Duration.ofSeconds(10));
    }
    // Nothing was started behind the lock; once it is free the next tick starts the request.
    assertThat(store.request(request.id()).orElseThrow().state()).isEqualTo(RequestState.ARTIFACTS_READY);
    assertThat(site.tick().started()).extracting(r -> r.request().orElseThrow().id()).containsExactly(request.id());
  }

  @Test
  @Timeout(60)
  void aSitePausedWhileHoldingTheControlRowLosesItsSessionAndTheOtherSiteStartsTheRequest() throws Exception {
    PostgresQueueStore.create(db.dataSource, options());
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    PostgresQueueStore pausing = PostgresQueueStore.attach(PgTestDatabase.pausingAfter(db.dataSource,
        "queue_control WHERE id = 1 FOR UPDATE", () -> {
          holding.countDown();
          try {
            resume.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }), options());
    PostgresQueueStore store = PostgresQueueStore.attach(db.dataSource, options());
    JobQueue stalled = JobQueue.of(pausing, settings());
    JobQueue other = JobQueue.of(store, settings());
    Request request = other.submit(NewRequest.master("sha1", null)).request();

    Future<TickResult> stalledTick = executor.submit(stalled::tick);
    assertThat(holding.await(20, TimeUnit.SECONDS)).as("the stalled site holds the control row").isTrue();
    long pausedAt = System.nanoTime();
    int timedOut = 0;
    long firstFailure = 0;
    List<StartResult> started = List.of();
    while (started.isEmpty() && System.nanoTime() - pausedAt < TimeUnit.SECONDS.toNanos(20)) {
      try {
        started = other.tick().started();
      } catch (QueueStoreUnavailableException e) {
        assertThat(e.mayHaveCommitted()).isFalse();
        if (timedOut++ == 0) {
          firstFailure = System.nanoTime() - pausedAt;
        }
      }
    }
    long startedAfter = System.nanoTime() - pausedAt;
    assertThat(started).extracting(r -> r.request().orElseThrow().id()).as("the other site starts the request")
        .containsExactly(request.id());
    assertThat(timedOut).as("ticks that gave up at the lock timeout while the row was held").isPositive();
    assertThat(Duration.ofNanos(firstFailure)).isLessThan(LOCK.plusSeconds(5));
    assertThat(Duration.ofNanos(startedAfter)).as("the row is free once the idle session is ended")
        .isGreaterThanOrEqualTo(IDLE.minusMillis(100)).isLessThan(IDLE.plusSeconds(7));
    System.out.println("QueueTimeoutsTest: a site paused holding the control row; the other site's first tick gave"
        + " up after " + firstFailure / 1_000_000 + " ms, " + timedOut + " ticks timed out, the request started "
        + startedAfter / 1_000_000 + " ms after the pause (idle-in-transaction timeout " + IDLE.toMillis() + " ms)");

    // The stalled site wakes up to a session the server ended: the retryable exception, nothing committed.
    resume.countDown();
    assertThatThrownBy(() -> stalledTick.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(QueueStoreUnavailableException.class, e -> {
          assertThat(e.operation()).isEqualTo("startRequest");
          assertThat(e.mayHaveCommitted()).isFalse();
        });
    assertThat(store.jobs(request.id())).as("the jobs were created once").hasSize(2);
    assertThat(store.inProgressRequests()).extracting(Request::id).containsExactly(request.id());
    assertThat(stalled.tick().started()).as("the resumed site finds the request started").isEmpty();
  }

  @Test
  @Timeout(60)
  void theHistoryStoreGivesUpWaitingForALockWithItsRetryableException() throws Exception {
    PostgresMetricHistoryStore.create(db.dataSource, db.schema);
    PostgresMetricHistoryStore history = PostgresMetricHistoryStore.attach(db.dataSource, db.schema,
        PostgresTimeouts.defaults().withLockTimeout(LOCK));
    try (Connection holder = db.dataSource.getConnection()) {
      holder.setAutoCommit(false);
      try (PreparedStatement st = holder.prepareStatement("LOCK TABLE " + db.schema
          + ".gate_series IN ACCESS EXCLUSIVE MODE")) {
        st.execute();
      }
      long started = System.nanoTime();
      Future<?> read = executor.submit(() -> history.coordinates(new SeriesKey("tests/e2e/test_a.py", "cuda",
          "stage-a")));
      try {
        read.get(10, TimeUnit.SECONDS);
        throw new AssertionError("the read went through a held lock");
      } catch (TimeoutException e) {
        throw new AssertionError("the read still waits after 10 s (no lock timeout)", e);
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOfSatisfying(MetricStoreUnavailableException.class, u -> {
          assertThat(u.mayHaveCommitted()).isFalse();
          assertThat(u.getMessage()).contains("55P03").contains("lock timeout");
        });
      } finally {
        holder.rollback();
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void theTimeoutsHaveDocumentedDefaultsAndRefuseWhatPostgresqlCannotTake() {
    PostgresTimeouts defaults = PostgresQueueOptions.inSchema("ci").timeouts();
    assertThat(defaults).isEqualTo(PostgresTimeouts.defaults());
    assertThat(defaults.lockTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(defaults.statementTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(defaults.idleInTransactionTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(PostgresTimeouts.serverSettings().runnerTimeouts().any()).isFalse();
    assertThat(defaults.withLockTimeout(Duration.ZERO).runnerTimeouts().lock()).isNull();
    assertThatThrownBy(() -> defaults.withLockTimeout(Duration.ofMillis(-1))).isInstanceOf(InvalidInputException.class)
        .hasMessage("lock timeout PT-0.001S is out of range: expected a duration from 0 (the server's setting) to"
            + " 2147483647 ms, PostgreSQL's largest");
    assertThatThrownBy(() -> defaults.withStatementTimeout(Duration.ofDays(25)))
        .isInstanceOf(InvalidInputException.class).hasMessageStartingWith("statement timeout PT600H is out of range");
    assertThatThrownBy(() -> defaults.withIdleInTransactionTimeout(null)).isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("idle-in-transaction timeout is missing");
    assertThat(PostgresQueueOptions.inSchema("ci").withTimeouts(PostgresTimeouts.serverSettings()))
        .isNotEqualTo(PostgresQueueOptions.inSchema("ci"));
  }
}

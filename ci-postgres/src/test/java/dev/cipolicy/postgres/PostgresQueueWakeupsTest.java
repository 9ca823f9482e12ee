package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.tck.SettableClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PostgresQueueWakeups}: a collector waiting for work wakes when jobs of its tag become queued
 * (enqueued or requeued), not for other tags or other stores' tables, survives the loss of its listening
 * session, and stops cleanly. Every wait here is long (30 s) where a wake-up is expected, so a pass proves
 * the notification arrived, not that a poll interval ran out.
 */
class PostgresQueueWakeupsTest {

  private static final Duration LONG = Duration.ofSeconds(30);

  private final SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
  private @Nullable PgTestDatabase db;
  private @Nullable PostgresQueueWakeups wakeups;
  private JobQueue queue;
  private JobQueue other;

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("wakeups", 6);
    PostgresQueueOptions options = PostgresQueueOptions.inSchema(db.schema);
    queue = JobQueue.of(PostgresQueueStore.createOnClock(db.dataSource, options, clock), settings("x86", "arm"));
    other = JobQueue.of(PostgresQueueStore.createOnClock(db.dataSource, options.withTablePrefix("other_"), clock), settings("x86"));
    wakeups = PostgresQueueWakeups.start(db.dataSource, options, Duration.ofMillis(100));
    awaitTrue(wakeups::listening, "the listener connects");
  }

  @AfterEach
  void tearDown() {
    if (wakeups != null) {
      wakeups.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void aWaitingCollectorWakesWhenJobsOfItsTagAreQueued() throws Exception {
    long seen = wakeups.generation("x86");
    CompletableFuture<Boolean> waiting = waitAsync("x86", seen, LONG);
    Thread.sleep(200);
    assertThat(waiting).isNotDone();
    long t0 = System.nanoTime();
    queue.submit(NewRequest.master("m1", null));
    queue.tick(); // starts the request: its jobs are queued
    assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    assertThat(wakeups.generation("x86")).isGreaterThan(seen);
    // Read before the claim, the count makes a job queued between an empty claim and the wait count.
    assertThat(wakeups.awaitQueued("x86", seen, LONG)).isTrue();
  }

  @Test
  void otherTagsAndOtherStoresTablesDoNotWakeIt() throws Exception {
    long seen = wakeups.generation("x86");
    JobQueue armOnly = JobQueue.of(PostgresQueueStore.attachOnClock(db.dataSource, db.schema, clock), settings("arm"));
    armOnly.submit(NewRequest.master("a1", null));
    armOnly.tick();
    other.submit(NewRequest.master("o1", null));
    other.tick();
    awaitTrue(() -> wakeups.generation("arm") > 0, "the arm jobs are heard");
    assertThat(wakeups.awaitQueued("x86", seen, Duration.ofMillis(800))).isFalse();
    assertThat(wakeups.generation("x86")).isEqualTo(seen);
  }

  @Test
  void aJobRequeuedAfterALostLeaseWakesToo() throws Exception {
    queue.registerCollector("c1", "x86", true);
    queue.submit(NewRequest.master("m1", null));
    queue.tick();
    assertThat(queue.claim("c1", 10).claims()).hasSize(1);
    long seen = wakeups.generation("x86");
    CompletableFuture<Boolean> waiting = waitAsync("x86", seen, LONG);
    clock.advance(Duration.ofMinutes(5));
    assertThat(queue.tick().expired().rescued()).hasSize(1);
    assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aLostListeningSessionWakesEveryWaiterAndIsReplaced() throws Exception {
    int pid = wakeups.backendPid();
    long seen = wakeups.generation("x86");
    CompletableFuture<Boolean> waiting = waitAsync("x86", seen, LONG);
    db.exec("SELECT pg_terminate_backend(" + pid + ")");
    // Jobs may be queued unheard while it is away, so the waiter is sent to claim (true), well before 30 s.
    assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    awaitTrue(() -> wakeups.listening() && wakeups.backendPid() != pid, "a new listening session");
    long again = wakeups.generation("x86");
    CompletableFuture<Boolean> next = waitAsync("x86", again, LONG);
    queue.submit(NewRequest.master("m2", null));
    queue.tick();
    assertThat(next.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void closingStopsTheListenerAndReleasesEveryWaiter() throws Exception {
    CompletableFuture<Boolean> waiting = waitAsync("x86", wakeups.generation("x86"), LONG);
    Thread.sleep(100);
    String name = "cipolicy-queue-wakeups-" + db.schema + ".queue_";
    assertThat(Thread.getAllStackTraces().keySet()).anyMatch(t -> t.getName().equals(name));
    wakeups.close();
    assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(wakeups.listening()).isFalse();
    assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(name) && t.isAlive());
    wakeups.close(); // idempotent
  }

  @Test
  void badArgumentsAreRefusedClearly() {
    assertThatThrownBy(() -> PostgresQueueWakeups.start(null, PostgresQueueOptions.inSchema("s")))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("no DataSource");
    assertThatThrownBy(() -> PostgresQueueWakeups.start(db.dataSource, PostgresQueueOptions.inSchema("s"),
        Duration.ZERO)).isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("between 1 ms and 1 hour");
    assertThatThrownBy(() -> wakeups.generation(" ")).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageContaining("collector tag");
    assertThatThrownBy(() -> wakeups.awaitQueued("x86", 0, Duration.ofSeconds(-1)))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("zero or more");
  }

  private CompletableFuture<Boolean> waitAsync(String tag, long seen, Duration maxWait) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return wakeups.awaitQueued(tag, seen, maxWait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    });
  }

  private static QueueSettings settings(String... tags) {
    QueueSettings.Builder b = QueueSettings.builder().maxInProgress(5)
        .leaseDuration(Duration.ofMinutes(1)).collectorTimeout(Duration.ofMinutes(5)).backfill(false)
        .addBenchmarkGroups("compile");
    for (String tag : tags) {
      b.addCollectorTargets(CollectorTarget.required(tag));
    }
    return b.build();
  }

  private static void awaitTrue(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what, e);
      }
    }
  }
}

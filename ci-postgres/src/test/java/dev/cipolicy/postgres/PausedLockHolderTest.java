package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.StartResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A site process stopped with SIGSTOP while it holds the control row (inside its start of a request): the
 * other site's ticks give up at the lock timeout instead of blocking, the server ends the stopped session at
 * the idle-in-transaction timeout, the other site then starts the request, and the stopped site, resumed with
 * SIGCONT, meets the retryable exception and carries on without starting anything twice.
 */
class PausedLockHolderTest {

  private static final Duration LOCK = Duration.ofSeconds(1);
  private static final Duration IDLE = Duration.ofSeconds(3);

  private PgTestDatabase db;
  private final List<WorkerProcess> workers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("paused", 4);
    PostgresQueueStore.create(db.dataSource, db.schema);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (WorkerProcess w : workers) {
      w.resume();
      w.kill();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  @Timeout(120)
  void aSiteStoppedWhileHoldingTheControlRowBlocksNoOtherSiteBeyondTheTimeouts(@TempDir Path logs) throws Exception {
    Map<String, String> common = db.workerArgs();
    common.put("groups", "3");
    common.put("tags", "x86");
    common.put("k", "1");
    common.put("lockMs", Long.toString(LOCK.toMillis()));
    common.put("idleMs", Long.toString(IDLE.toMillis()));
    QueueSettings settings = QueueWorkerMain.settings(common);
    PostgresQueueStore store = PostgresQueueStore.attach(db.dataSource, PostgresQueueOptions.inSchema(db.schema)
        .withTimeouts(PostgresTimeouts.defaults().withLockTimeout(LOCK).withIdleInTransactionTimeout(IDLE)));
    JobQueue other = JobQueue.of(store, settings);
    Request request = other.submit(NewRequest.master("pausedsha", null)).request();

    WorkerProcess stalled = WorkerProcess.start("stalled-site", logs, WorkerProcess.args(common, "role=site",
        "pauseMs=2000", "durationMs=60000", "maxIterations=200"));
    workers.add(stalled);
    assertThat(stalled.awaitLine("PAUSED", 40_000)).as("the site locks the control row:\n%s", stalled.output())
        .isNotNull();
    stalled.pause();
    long pausedAt = System.nanoTime();

    int timedOut = 0;
    long longestTick = 0;
    List<StartResult> started = List.of();
    while (started.isEmpty() && System.nanoTime() - pausedAt < TimeUnit.SECONDS.toNanos(30)) {
      long tickStart = System.nanoTime();
      try {
        started = other.tick().started();
      } catch (QueueStoreUnavailableException e) {
        assertThat(e.mayHaveCommitted()).isFalse();
        assertThat(e.getMessage()).contains("lock timeout");
        timedOut++;
      }
      longestTick = Math.max(longestTick, System.nanoTime() - tickStart);
    }
    long startedAfter = System.nanoTime() - pausedAt;
    assertThat(started).extracting(r -> r.request().orElseThrow().id()).as("the other site starts the request")
        .containsExactly(request.id());
    assertThat(timedOut).as("ticks that gave up at the lock timeout").isPositive();
    assertThat(Duration.ofNanos(longestTick)).as("no tick blocks beyond the lock timeout")
        .isLessThan(LOCK.plusSeconds(4));
    assertThat(Duration.ofNanos(startedAfter)).as("the row is free once the server ended the stopped session")
        .isLessThan(IDLE.plusSeconds(8));

    stalled.resume();
    assertThat(stalled.await(60_000)).as("the resumed site ends normally:\n%s", stalled.output()).isZero();
    String log = stalled.output();
    assertThat(log).contains("RESUMED").contains("ERROR site: startRequest").contains("idle-in-transaction timeout");
    assertThat(store.jobs(request.id())).as("the jobs were created once").hasSize(3);
    assertThat(store.inProgressRequests()).extracting(Request::id).containsExactly(request.id());
    System.out.println("PausedLockHolderTest: a site stopped holding the control row (lock timeout " + LOCK.toMillis()
        + " ms, idle-in-transaction timeout " + IDLE.toMillis() + " ms): longest tick of the other site "
        + longestTick / 1_000_000 + " ms, " + timedOut + " ticks gave up, the request started " + startedAfter / 1_000_000
        + " ms after the stop");
  }
}

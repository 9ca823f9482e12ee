package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.ResultPayload;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
 * A "zombie" collector: a collector process stopped with SIGSTOP mid-job for longer than its lease (a frozen
 * VM, a long GC pause, a swapped-out host), whose job another collector takes over; when the zombie is resumed
 * with SIGCONT its heartbeat and its completion are refused by fencing, and the job finishes exactly once, by
 * the collector that took it over.
 */
class ZombieCollectorTest {

  private static final long LEASE_MS = 2000;

  private PgTestDatabase db;
  private final List<WorkerProcess> workers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("zombie", 4);
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
  void aCollectorPausedLongerThanItsLeaseIsFencedOffWhenItResumesAndTheJobFinishesOnce(@TempDir Path logs)
      throws Exception {
    JobAudit audit = JobAudit.install(db.dataSource, db.schema);
    Map<String, String> common = db.workerArgs();
    common.put("groups", "1");
    common.put("tags", "x86");
    common.put("k", "1");
    common.put("leaseMs", Long.toString(LEASE_MS));
    common.put("timeoutMs", Long.toString(LEASE_MS));
    QueueSettings settings = QueueWorkerMain.settings(common);
    PostgresQueueStore store = PostgresQueueStore.attach(db.dataSource, db.schema);
    JobQueue queue = JobQueue.of(store, settings);
    Request request = queue.submit(NewRequest.master("zombiesha", null)).request();
    assertThat(queue.tick().started()).hasSize(1);

    WorkerProcess zombie = WorkerProcess.start("zombie", logs, WorkerProcess.args(common, "role=zombie",
        "name=zombie", "tag=x86", "durationMs=90000", "workMs=60000"));
    workers.add(zombie);
    String claimed = zombie.awaitLine("CLAIMED ", 40_000);
    assertThat(claimed).as("the zombie-to-be claims the job:\n%s", zombie.output()).isNotNull();
    String[] parts = claimed.split(" ");
    JobId jobId = JobId.of(Long.parseLong(parts[1]));
    assertThat(Integer.parseInt(parts[2])).isEqualTo(1);

    // While it runs it heartbeats: past one lease duration the job is still its own.
    Thread.sleep(LEASE_MS + 500);
    assertThat(store.job(jobId).orElseThrow().lease().orElseThrow().collector()).isEqualTo("zombie");

    queue.registerCollector("rescuer", "x86", true);
    zombie.pause();
    long pausedAt = System.nanoTime();
    Instant lastExpiry = db.leaseExpiry(jobId); // no heartbeat moves it any more
    Claim takenOver = null;
    int polls = 0;
    while (takenOver == null && System.nanoTime() - pausedAt < TimeUnit.SECONDS.toNanos(30)) {
      List<Claim> claims = queue.claim("rescuer").claims();
      polls++;
      if (claims.isEmpty()) {
        Thread.sleep(100);
      } else {
        takenOver = claims.get(0);
      }
    }
    long recoveredAfter = System.nanoTime() - pausedAt;
    assertThat(takenOver).as("the job is taken over within 30 s of the pause").isNotNull();
    assertThat(polls).as("nothing to take over while the paused holder's lease was live").isGreaterThan(1);
    // On the store's clock, which decides: the second attempt started once the paused holder's lease had run
    // out (this test's own clock would also count the time the machine took to deliver the SIGSTOP).
    JobAttempt second = store.attempts(jobId).stream().filter(a -> a.attempt() == 2).findFirst().orElseThrow();
    assertThat(second.startedAt()).as("taken over only once the lease ran out").isAfterOrEqualTo(lastExpiry);
    Lease lease = takenOver.lease();
    assertThat(lease.jobId()).isEqualTo(jobId);
    assertThat(lease.attempt()).isEqualTo(2);

    // The zombie wakes up while the rescuer holds the job: its heartbeat and its completion are refused.
    zombie.resume();
    String fenced = zombie.awaitLine("FENCED ", 30_000);
    assertThat(fenced).as("the resumed zombie is fenced off:\n%s", zombie.output())
        .isEqualTo("FENCED heartbeat=STALE_LEASE complete=STALE_LEASE");
    assertThat(zombie.await(30_000)).isZero();
    Job stillLeased = store.job(jobId).orElseThrow();
    assertThat(stillLeased.state()).as("the zombie changed nothing").isEqualTo(JobState.LEASED);
    assertThat(stillLeased.lease().orElseThrow().token()).isEqualTo(lease.token());

    assertThat(queue.result(jobId)).as("the zombie's refused completion kept no result").isEmpty();
    assertThat(queue.complete(lease, ResultPayload.ofText("rescuer attempt 2")).ok()).isTrue();
    assertThat(queue.complete(lease, ResultPayload.ofText("a retried completion")).ok())
        .as("a second completion").isFalse();
    assertThat(queue.result(jobId)).as("the winner's result, never overwritten").hasValueSatisfying(r -> {
      assertThat(r.payload().text()).isEqualTo("rescuer attempt 2");
      assertThat(r.attempt()).isEqualTo(2);
      assertThat(r.collector()).isEqualTo("rescuer");
    });
    assertThat(audit.transitions(jobId.value())).containsExactly("QUEUED->LEASED@1", "LEASED->QUEUED@1",
        "QUEUED->LEASED@2", "LEASED->SUCCEEDED@2");
    assertThat(audit.finishedTwice()).isZero();
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(request.id());
    assertThat(store.request(request.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
    System.out.println("ZombieCollectorTest: lease " + LEASE_MS + " ms; job taken over " + recoveredAfter / 1_000_000
        + " ms after the holder was paused, " + Duration.between(lastExpiry, second.startedAt()).toMillis()
        + " ms after its lease ran out (" + polls + " claims polled every 100 ms); the resumed zombie: " + fenced);
  }
}

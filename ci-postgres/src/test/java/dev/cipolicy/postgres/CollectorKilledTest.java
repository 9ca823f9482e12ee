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
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
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
 * A collector process killed with SIGKILL mid-job: its job is reclaimed by another collector once the lease
 * (and the dead collector's affinity) has run out, and completes exactly once; the dead holder's lease is
 * fenced off.
 */
class CollectorKilledTest {

  private static final long LEASE_MS = 2000;

  private PgTestDatabase db;
  private final List<WorkerProcess> workers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("killed", 4);
    PostgresQueueStore.create(db.dataSource, db.schema);
  }

  @AfterEach
  void tearDown() {
    workers.forEach(WorkerProcess::kill);
    if (db != null) {
      db.close();
    }
  }

  @Test
  @Timeout(90)
  void aJobOfAKilledCollectorIsReclaimedAfterTheLeaseAndCompletesOnce(@TempDir Path logs) throws Exception {
    Map<String, String> common = db.workerArgs();
    common.put("groups", "1");
    common.put("tags", "x86");
    common.put("k", "1");
    common.put("leaseMs", Long.toString(LEASE_MS));
    common.put("timeoutMs", Long.toString(LEASE_MS));
    QueueSettings settings = QueueWorkerMain.settings(common);
    PostgresQueueStore store = PostgresQueueStore.attach(db.dataSource, db.schema);
    JobQueue queue = JobQueue.of(store, settings);
    Request request = queue.submit(NewRequest.master("killsha", null)).request();
    assertThat(queue.tick().started()).hasSize(1);

    WorkerProcess doomed = WorkerProcess.start("doomed", logs, WorkerProcess.args(common, "role=hold", "name=doomed",
        "tag=x86", "durationMs=60000", "maxIterations=100000"));
    workers.add(doomed);

    String claimedLine = null;
    long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (claimedLine == null && System.nanoTime() < waitUntil && doomed.process.isAlive()) {
      claimedLine = doomed.output().lines().filter(l -> l.startsWith("CLAIMED ")).findFirst().orElse(null);
      Thread.sleep(50);
    }
    assertThat(claimedLine).as("the holding collector claims the job:\n%s", doomed.output()).isNotNull();
    String[] parts = claimedLine.split(" ");
    JobId jobId = JobId.of(Long.parseLong(parts[1]));
    int attempt = Integer.parseInt(parts[2]);
    long token = Long.parseLong(parts[3]);
    assertThat(attempt).isEqualTo(1);

    // While it lives it heartbeats: past one lease duration the job is still its own.
    Thread.sleep(LEASE_MS + 1000);
    Job held = store.job(jobId).orElseThrow();
    assertThat(held.state()).isEqualTo(JobState.LEASED);
    assertThat(held.lease().orElseThrow().token()).isEqualTo(token);
    assertThat(held.lease().orElseThrow().collector()).isEqualTo("doomed");

    // SIGKILL mid-job: no shutdown hook, no release, the connection just drops.
    queue.registerCollector("rescuer", "x86", true);
    doomed.process.destroyForcibly();
    long killedAt = System.nanoTime();
    assertThat(doomed.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(doomed.process.exitValue()).as("killed by SIGKILL").isEqualTo(137);
    assertThat(doomed.output()).doesNotContain("DONE");
    Instant lastExpiry = db.leaseExpiry(jobId);

    Claim reclaimed = null;
    long claimUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    int polls = 0;
    while (reclaimed == null && System.nanoTime() < claimUntil) {
      List<Claim> claims = queue.claim("rescuer").claims();
      polls++;
      if (!claims.isEmpty()) {
        reclaimed = claims.get(0);
      } else {
        Thread.sleep(100);
      }
    }
    assertThat(reclaimed).as("the job is reclaimed within 20 s after %d polls", polls).isNotNull();
    // On the store's clock, which decides (a claim sent just before the expiry may run just after it).
    JobAttempt second = store.attempts(jobId).stream().filter(a -> a.attempt() == 2).findFirst().orElseThrow();
    assertThat(second.startedAt()).as("reclaimed only after the dead holder's lease ran out")
        .isAfterOrEqualTo(lastExpiry);
    System.out.println("CollectorKilledTest: lease " + LEASE_MS + " ms; the killed collector's job was reclaimed "
        + (System.nanoTime() - killedAt) / 1_000_000 + " ms after the SIGKILL, "
        + Duration.between(lastExpiry, second.startedAt()).toMillis() + " ms after its lease ran out (" + polls
        + " claims, every 100 ms)");
    assertThat(polls).as("nothing to claim while the lease was live").isGreaterThan(1);
    Lease lease = reclaimed.lease();
    assertThat(lease.jobId()).isEqualTo(jobId);
    assertThat(lease.attempt()).isEqualTo(2);
    assertThat(lease.token()).isNotEqualTo(token);
    assertThat(reclaimed.job().crashRescues()).isEqualTo(1);

    // The dead holder's lease is fenced off; the rescuer completes once, and only once.
    LeaseRef dead = new LeaseRef(jobId, attempt, token);
    assertThat(store.heartbeat(dead, settings.leaseDuration()).status())
        .isEqualTo(LeaseStatus.STALE_LEASE);
    LeaseResult done = queue.complete(lease);
    assertThat(done.ok()).isTrue();
    assertThat(queue.complete(lease).ok()).as("a second completion").isFalse();
    assertThat(store.complete(dead).ok()).as("the dead holder's completion")
        .isFalse();

    Job finished = store.job(jobId).orElseThrow();
    assertThat(finished.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(finished.attempt()).isEqualTo(2);
    assertThat(finished.lease()).isEmpty();
    assertThat(queue.tick().completed()).extracting(Request::id).containsExactly(request.id());
    assertThat(store.request(request.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
    assertThat(queue.claim("rescuer").claims()).isEmpty();
  }
}

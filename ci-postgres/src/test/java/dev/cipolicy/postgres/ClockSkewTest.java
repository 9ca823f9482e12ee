package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Clock skew between a site, collectors and the database. Before the store's own clock, a site whose clock ran
 * three leases ahead expired every live lease and failed every job; now no engine or store method takes a
 * caller's time (the kit's "Caller clocks" group fails on any that does), so a host's clock cannot be injected
 * at all. What remains to check on a real server is the scenario itself: a site ticking and a peer collector
 * claiming as fast as they can, during an honest holder's live leases, expire nothing, fail nothing and take
 * nothing — lease expiry is the server's clock alone.
 */
class ClockSkewTest {

  private static final Duration LEASE = Duration.ofSeconds(2);

  private PgTestDatabase db;

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("skew", 6);
    PostgresQueueStore.create(db.dataSource, db.schema);
  }

  @AfterEach
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  private static QueueSettings settings() {
    return QueueSettings.builder().maxInProgress(1).leaseDuration(LEASE).collectorTimeout(LEASE).backfill(false)
        .addBenchmarkGroups("g1", "g2", "g3").addCollectorTargets(CollectorTarget.required("x86")).build();
  }

  @Test
  @Timeout(90)
  void aBusySiteAndABusyPeerFailNoLiveJobAndStealNoLease() throws Exception {
    JobAudit audit = JobAudit.install(db.dataSource, db.schema);
    PostgresQueueStore store = PostgresQueueStore.attach(db.dataSource, db.schema);
    JobQueue site = JobQueue.of(store, settings());
    JobQueue honest = JobQueue.of(store, settings());
    JobQueue fast = JobQueue.of(store, settings());
    Request request = site.submit(NewRequest.master("skewsha", null)).request();
    assertThat(site.tick().started()).hasSize(1);
    honest.registerCollector("honest", "x86", true);
    fast.registerCollector("fast", "x86", true);

    // The honest collector holds every job and heartbeats for two leases, while the site ticks and the
    // peer collector tries to claim.
    List<Lease> leases = new ArrayList<>();
    for (Claim claim : honest.claim("honest", 3).claims()) {
      leases.add(claim.lease());
    }
    assertThat(leases).hasSize(3);
    long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
    int stolen = 0;
    while (System.nanoTime() < until) {
      site.tick();
      stolen += fast.claim("fast", 3).claims().size();
      for (Lease lease : leases) {
        assertThat(honest.heartbeat(lease).ok()).as("the honest holder's lease stays live").isTrue();
      }
      Thread.sleep(LEASE.toMillis() / 10);
    }
    assertThat(stolen).as("jobs the peer collector took from a live holder").isZero();
    for (Lease lease : leases) {
      assertThat(honest.complete(lease).ok()).isTrue();
    }
    long tickUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.request(request.id()).orElseThrow().state() != RequestState.COMPLETED
        && System.nanoTime() < tickUntil) {
      site.tick();
      Thread.sleep(50);
    }
    assertThat(store.jobs(request.id())).extracting(j -> j.state()).containsOnly(JobState.SUCCEEDED);
    assertThat(audit.rescued()).as("leases the busy site expired").isZero();
    assertThat(audit.finishedTwice()).isZero();
    assertThat(store.request(request.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
  }
}

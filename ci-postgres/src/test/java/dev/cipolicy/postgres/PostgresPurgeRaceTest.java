package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Purging a completed request while a collector claims its queued optional jobs, on the real server: either
 * the claim wins and the purge reports the leased job (the lease completes normally afterwards), or the purge
 * wins and the claim gets none of the purged jobs; never a lease on a job that is gone.
 */
class PostgresPurgeRaceTest {

  private static final int ROUNDS = 150;

  private static @Nullable PgTestDatabase db;

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  @Test
  void aPurgeRacingAClaimNeverLeavesALeaseWithoutItsJob() throws Exception {
    PgTestDatabase database = PgTestDatabase.open("purgerace", 4);
    db = database;
    PostgresQueueStore store = PostgresQueueStore.create(database.dataSource, database.schema);
    store.registerCollector("arm-1", "arm", true);
    ClaimCommand claim = ClaimCommand.builder().collector("arm-1").leaseDuration(Duration.ofMinutes(1)).build();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    int purgedFirst = 0;
    int claimedFirst = 0;
    try {
      for (int round = 0; round < ROUNDS; round++) {
        String tag = "p" + round;
        Request r = store.submit(NewRequest.master(tag, null)).request();
        store.startRequest(StartCommand.builder().requestId(r.id())
            .jobs(List.of(JobSpec.optionalJob("compile", "arm"))).build());
        store.completeIfDone(r.id());
        CyclicBarrier barrier = new CyclicBarrier(2);
        Future<ClaimResult> claimed = pool.submit(() -> {
          barrier.await(10, TimeUnit.SECONDS);
          return store.claim(claim);
        });
        Future<PurgeResult> purged = pool.submit(() -> {
          barrier.await(10, TimeUnit.SECONDS);
          return store.purge(tag);
        });
        ClaimResult c = claimed.get(30, TimeUnit.SECONDS);
        PurgeResult p = purged.get(30, TimeUnit.SECONDS);
        if (p.status() == PurgeResult.Status.PURGED) {
          purgedFirst++;
          assertThat(c.claims()).as("round %d: claims after the purge won", round).isEmpty();
          assertThat(store.jobs(r.id())).isEmpty();
        } else {
          claimedFirst++;
          assertThat(p.status()).as("round %d", round).isEqualTo(PurgeResult.Status.JOB_LEASED);
          assertThat(c.claims()).hasSize(1);
          Claim held = c.claims().get(0);
          assertThat(store.complete(LeaseRef.of(held.lease())).status()).isEqualTo(LeaseStatus.OK);
          assertThat(store.purge(tag).status()).isEqualTo(PurgeResult.Status.PURGED);
        }
        assertThat(database.count("SELECT count(*) FROM " + database.schema + ".queue_leases")).isZero();
        assertThat(database.count("SELECT count(*) FROM " + database.schema + ".queue_jobs")).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(purgedFirst + claimedFirst).isEqualTo(ROUNDS);
    // Both orders happened (measured: about one purge in five wins), so both branches above were checked.
    assertThat(purgedFirst).as("rounds the purge won").isPositive();
    assertThat(claimedFirst).as("rounds the claim won").isPositive();
  }
}

package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Four hosts of one pool claiming GPU jobs of mixed sizes at once on the server's clock: every job runs
 * exactly once, no claim fails, and at no time do two live leases hold the same device (each host checks the
 * devices it was given against the ones it still holds).
 */
class ConcurrentGpuClaimsTest {

  private static final int JOBS = 120;
  private @Nullable PgTestDatabase db;
  private PostgresQueueStore store;

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("gpuconc", 8);
    store = PostgresQueueStore.createOnClock(db.dataSource, db.schema, Clock.systemUTC());
  }

  @AfterEach
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void hostsShareThePoolWithoutSharingADevice() throws Exception {
    for (int h = 0; h < 4; h++) {
      store.registerCollector("h" + h, "gpu", true, Devices.grouped(List.of(List.of(0, 1, 2, 3),
          List.of(4, 5, 6, 7))));
    }
    Request r = store.submit(NewRequest.master("m1", null)).request();
    int[] sizes = {1, 2, 4, 8, 2, 1};
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < JOBS; i++) {
      specs.add(JobSpec.required("g" + i, "gpu").withGpus(sizes[i % sizes.length], Duration.ofSeconds(1)));
    }
    List<Job> jobs = store.startRequest(StartCommand.builder().requestId(r.id()).jobs(specs).build()).jobs();
    Set<Long> done = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> hosts = new ArrayList<>();
      for (int h = 0; h < 4; h++) {
        String name = "h" + h;
        hosts.add(pool.submit(() -> runHost(name, done)));
      }
      int total = 0;
      for (Future<Integer> f : hosts) {
        total += f.get(5, TimeUnit.MINUTES);
      }
      assertThat(total).isEqualTo(JOBS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(done).hasSize(JOBS);
    assertThat(store.jobs(r.id())).extracting(Job::state).containsOnly(JobState.SUCCEEDED);
    assertThat(jobs).hasSize(JOBS);
    assertThat(db.count("SELECT count(*) FROM " + db.schema + ".queue_held_devices")).isZero();
  }

  /** Claims up to two jobs at a time, checks their devices are free on this host, and completes them. */
  private int runHost(String name, Set<Long> done) {
    int completed = 0;
    Set<Integer> held = new HashSet<>();
    for (int round = 0; round < 10_000 && done.size() < JOBS; round++) {
      List<Claim> claims = store.claim(ClaimCommand.builder().collector(name).leaseDuration(Duration.ofMinutes(5))
          .limit(2).build())
          .claims();
      for (Claim c : claims) {
        for (int d : c.lease().devices()) {
          assertThat(held.add(d)).as("device %s of %s given twice", d, name).isTrue();
        }
      }
      for (Claim c : claims) {
        assertThat(store.complete(LeaseRef.of(c.lease())).status()).isEqualTo(LeaseStatus.OK);
        c.lease().devices().forEach(held::remove);
        assertThat(done.add(c.job().id().value())).as("job %s ran twice", c.job().id()).isTrue();
        completed++;
      }
    }
    return completed;
  }
}

package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares.Share;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kit's contract for fleet shares: a job whose cadence has a share of its pool is claimed only while the
 * cadence's live leases in the pool (runners, or GPUs) plus the job stay within the share, across requests;
 * capped jobs wait (never cancelled, never failed) with a {@link WaitReason.Kind#SHARE_FULL} reason and are
 * claimed at the next claim once a lease ends; a borrowing share uses idle capacity and gives it back while
 * another cadence waits; concurrent claims never exceed a share; and a model check compares the store with
 * {@link ReferenceQueueStore} over random operations with cadences and shares.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Shares" group.
 */
abstract class SharesContract extends GpuKitGroup {

  private int runs;

  SharesContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  /** Starts a request whose jobs, of the given cadences, need no GPU and run on pool {@code r}. */
  private List<Job> runnerJobs(String... cadences) {
    Request r = submit(NewRequest.master("run-" + ++runs, null));
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < cadences.length; i++) {
      specs.add(JobSpec.required("j" + i, "r").withCadence(cadences[i]));
    }
    StartResult started = store.startRequest(StartCommand.builder().requestId(r.id()).jobs(specs)
        .maxInProgress(100_000).build());
    assertThat(started.status()).isEqualTo(StartResult.Status.STARTED);
    assertThat(started.jobs()).extracting(j -> j.spec().cadence()).containsExactly(cadences);
    return started.jobs();
  }

  /** Starts a request of one cadence whose jobs need the given GPUs on pool {@code gpu}. */
  private List<Job> gpuJobsOf(String cadence, int... gpus) {
    Request r = submit(NewRequest.master("gpu-run-" + ++runs, null));
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < gpus.length; i++) {
      specs.add(JobSpec.required("g" + i, "gpu").withGpus(gpus[i], Duration.ofHours(1)).withCadence(cadence));
    }
    StartResult started = store.startRequest(StartCommand.builder().requestId(r.id()).jobs(specs)
        .maxInProgress(100_000).build());
    assertThat(started.status()).isEqualTo(StartResult.Status.STARTED);
    return started.jobs();
  }

  private void runners(int n) {
    for (int i = 0; i < n; i++) {
      register("r" + i, "r");
    }
  }

  private List<Job> claimed(String collector, int limit) {
    return claim(collector, limit).stream().map(Claim::job).toList();
  }

  /** A missing value, as a careless caller passes it. */
  @SuppressWarnings("NullAway")
  private static FleetShares nothing() {
    return null;
  }

  /** Asserts the facts of a {@link WaitReason.Kind#SHARE_FULL} reason: the share that refuses and what it holds. */
  private static void assertRefused(WaitReason reason, String pool, String cadence, int held, int amount,
      FleetShares.Unit unit, boolean borrow) {
    assertThat(reason.kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertThat(reason.pool()).contains(pool);
    assertThat(reason.held()).hasValue(held);
    FleetShares.Share share = reason.share().orElseThrow();
    assertThat(share.cadence()).isEqualTo(cadence);
    assertThat(share.pool()).isEqualTo(pool);
    assertThat(share.amount()).isEqualTo(amount);
    assertThat(share.unit()).isEqualTo(unit);
    assertThat(share.borrow()).isEqualTo(borrow);
    assertThat(reason.dormant()).isFalse();
  }

  private WaitReason reasonOf(String pool, Job job) {
    for (JobWait w : store.waitingJobs(pool, LEASE)) {
      if (w.job().id().equals(job.id())) {
        return w.reason();
      }
    }
    throw new AssertionError("job " + job + " does not wait in pool " + pool);
  }

  @Test
  @DisplayName("shares are none by default, read back as set, and refused when missing")
  void sharesReadBack() {
    assertThat(store.shares()).isEqualTo(FleetShares.none());
    FleetShares shares = FleetShares.of(Share.runners("weekly", "r", 2), Share.gpus("nightly", "gpu", 8).borrowing());
    store.setShares(shares);
    assertThat(store.shares()).isEqualTo(shares);
    store.setShares(FleetShares.none());
    assertThat(store.shares().isEmpty()).isTrue();
    assertThatThrownBy(() -> store.setShares(nothing())).isInstanceOf(InvalidQueueInputException.class);
    assertThatThrownBy(() -> FleetShares.of(Share.runners("weekly", "r", 1), Share.runners("weekly", "r", 2)))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("two shares");
    assertThatThrownBy(() -> Share.runners("weekly", "r", 0)).isInstanceOf(InvalidQueueInputException.class);
    assertThatThrownBy(() -> JobSpec.required("g", "r").withCadence("two words"))
        .isInstanceOf(InvalidQueueInputException.class);
  }

  @Test
  @DisplayName("a cadence's jobs hold at most its runners; the others and the uncapped ones go on")
  void runnerCap() {
    runners(3);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", 1)));
    List<Job> jobs = runnerJobs("weekly", "weekly", "nightly", "");
    assertThat(claimed("r0", 1)).extracting(Job::id).containsExactly(jobs.get(0).id());
    assertThat(claimed("r1", 1)).extracting(Job::id).containsExactly(jobs.get(2).id());
    assertThat(claimed("r2", 1)).extracting(Job::id).containsExactly(jobs.get(3).id());
    assertThat(claim("r2", 5)).isEmpty();
    assertThat(reload(jobs.get(1)).state()).isEqualTo(JobState.QUEUED);
    WaitReason reason = reasonOf("r", jobs.get(1));
    assertThat(reason.kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertRefused(reason, "r", "weekly", 1, 1, FleetShares.Unit.RUNNERS, false);
    // The lease ends: the capped job is claimed at the very next claim.
    complete(jobs.get(0));
    assertThat(reasonOf("r", jobs.get(1)).kind()).isEqualTo(WaitReason.Kind.CLAIMABLE);
    assertThat(claimed("r0", 5)).extracting(Job::id).containsExactly(jobs.get(1).id());
  }

  @Test
  @DisplayName("the cap counts every request and stage of the cadence together; capped jobs stay queued")
  void capAcrossRequests() {
    runners(2);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", 2)));
    List<Job> first = runnerJobs("weekly", "weekly");
    List<Job> second = runnerJobs("weekly", "weekly", "weekly");
    assertThat(claimed("r0", 1)).extracting(Job::id).containsExactly(first.get(0).id());
    assertThat(claimed("r1", 10)).extracting(Job::id).containsExactly(first.get(1).id());
    assertThat(claim("r0", 10)).isEmpty();
    for (Job j : second) {
      assertThat(reload(j).state()).isEqualTo(JobState.QUEUED);
      assertRefused(reasonOf("r", j), "r", "weekly", 2, 2, FleetShares.Unit.RUNNERS, false);
    }
    assertThat(store.fail(ref(this, first.get(1)), dev.cipolicy.queue.model.Failure.permanent("broken"), 2).status())
        .isEqualTo(LeaseStatus.OK);
    assertThat(claimed("r1", 10)).extracting(Job::id).containsExactly(second.get(0).id());
    assertThat(store.release(ref(this, first.get(0))).status()).isEqualTo(LeaseStatus.OK);
    // The released job is older than the rest: it comes back first.
    assertThat(claimed("r0", 10)).extracting(Job::id).containsExactly(first.get(0).id());
    assertThat(reload(second.get(2)).state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  @DisplayName("an expired lease gives its unit back to the cadence")
  void expiryFrees() {
    runners(2);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", 1)));
    List<Job> jobs = runnerJobs("weekly", "weekly");
    assertThat(claimed("r0", 1)).extracting(Job::id).containsExactly(jobs.get(0).id());
    assertThat(claim("r1", 1)).isEmpty();
    clock.advance(LEASE.plusSeconds(1));
    // r0 crashed: its job is rescued and r1 may take it (the oldest); the cap still allows one.
    assertThat(claimed("r1", 5)).extracting(Job::id).containsExactly(jobs.get(0).id());
    assertThat(reload(jobs.get(1)).state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  @DisplayName("a GPU share counts GPU budgets; a capped job neither runs nor holds a reservation")
  void gpuCap() {
    host("h0", Devices.count(8));
    store.setShares(FleetShares.of(Share.gpus("weekly", "gpu", 4)));
    List<Job> weekly = gpuJobsOf("weekly", 2, 2, 2);
    List<Job> nightly = gpuJobsOf("nightly", 4);
    List<Claim> claims = claim("h0", 10);
    assertThat(claims).extracting(c -> c.job().id()).containsExactly(weekly.get(0).id(), weekly.get(1).id(),
        nightly.get(0).id());
    assertThat(reload(weekly.get(2)).state()).isEqualTo(JobState.QUEUED);
    WaitReason reason = reasonOf("gpu", weekly.get(2));
    assertThat(reason.kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertRefused(reason, "gpu", "weekly", 4, 4, FleetShares.Unit.GPUS, false);
    assertThat(reason.gpus()).isEqualTo(2);
    complete(nightly.get(0));
    // Four devices are free, but the weekly cadence still holds its four GPUs.
    assertThat(claim("h0", 10)).isEmpty();
    complete(weekly.get(0));
    assertThat(claimDevices("h0", weekly.get(2))).hasSize(2);
  }

  @Test
  @DisplayName("a borrowing cadence uses idle runners, then gives them back while another cadence waits")
  void borrowAndGiveBack() {
    runners(2);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", 1).borrowing()));
    List<Job> weekly = runnerJobs("weekly", "weekly", "weekly");
    assertThat(claimed("r0", 1)).extracting(Job::id).containsExactly(weekly.get(0).id());
    // Nobody else waits: the second runner is borrowed.
    assertThat(claimed("r1", 1)).extracting(Job::id).containsExactly(weekly.get(1).id());
    List<Job> nightly = runnerJobs("nightly");
    complete(weekly.get(0));
    // Weekly holds 1 of 1 and nightly waits: the idle runner goes to nightly, not to the older weekly job.
    WaitReason reason = reasonOf("r", weekly.get(2));
    assertThat(reason.kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertRefused(reason, "r", "weekly", 1, 1, FleetShares.Unit.RUNNERS, true);
    assertThat(claimed("r0", 1)).extracting(Job::id).containsExactly(nightly.get(0).id());
    // Nobody waits any more: weekly borrows again.
    assertThat(claimed("r1", 5)).extracting(Job::id).containsExactly(weekly.get(2).id());
  }

  @Test
  @DisplayName("a cadence capped by its own full share does not wait for the pool: others may borrow")
  void cappedOthersDoNotBlockBorrowing() {
    runners(3);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", 1).borrowing(), Share.runners("nightly", "r", 1)));
    List<Job> nightly = runnerJobs("nightly", "nightly");
    List<Job> weekly = runnerJobs("weekly", "weekly");
    assertThat(claimed("r0", 1)).extracting(Job::id).containsExactly(nightly.get(0).id());
    assertThat(claimed("r1", 1)).extracting(Job::id).containsExactly(weekly.get(0).id());
    // Nightly waits but holds its whole share: weekly borrows the third runner.
    assertThat(claimed("r2", 5)).extracting(Job::id).containsExactly(weekly.get(1).id());
    assertRefused(reasonOf("r", nightly.get(1)), "r", "nightly", 1, 1, FleetShares.Unit.RUNNERS, false);
  }

  @Test
  @DisplayName("a borrowing cadence takes idle devices that no other cadence's waiting job fits, and stops once"
      + " one fits")
  void borrowDevicesNobodyElseFits() {
    host("h0", Devices.count(8));
    store.setShares(FleetShares.of(Share.gpus("nightly", "gpu", 4).borrowing()));
    List<Job> nightly = gpuJobsOf("nightly", 4, 2);
    List<Job> wide = gpuJobsOf("pr", 8);
    // After the first nightly job four devices are free: the pull request's 8-GPU job fits on none of them,
    // so it does not stop the nightly from borrowing them.
    assertThat(claim("h0", 10)).extracting(c -> c.job().id()).containsExactly(nightly.get(0).id(),
        nightly.get(1).id());
    assertThat(reasonOf("gpu", wide.get(0)).kind()).isNotEqualTo(WaitReason.Kind.SHARE_FULL);
    List<Job> more = gpuJobsOf("nightly", 2);
    List<Job> narrow = gpuJobsOf("pr", 2, 2);
    complete(nightly.get(1));
    // Four devices are free and pull requests' jobs fit on them: the nightly, holding 4 of 4, gives them back.
    WaitReason reason = reasonOf("gpu", more.get(0));
    assertThat(reason.kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    assertRefused(reason, "gpu", "nightly", 4, 4, FleetShares.Unit.GPUS, true);
    assertThat(reason.gpus()).isEqualTo(2);
    assertThat(claim("h0", 10)).extracting(c -> c.job().id()).containsExactly(narrow.get(0).id(),
        narrow.get(1).id());
    assertThat(reload(more.get(0)).state()).isEqualTo(JobState.QUEUED);
    assertThat(reload(wide.get(0)).state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  @DisplayName("lowering a share takes no lease away; the cadence waits until it is back under")
  void loweredShare() {
    runners(3);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", 3)));
    List<Job> weekly = runnerJobs("weekly", "weekly", "weekly", "weekly");
    assertThat(claim("r0", 2)).hasSize(2);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", 1)));
    assertThat(claim("r1", 5)).isEmpty();
    assertThat(reload(weekly.get(0)).state()).isEqualTo(JobState.LEASED);
    assertRefused(reasonOf("r", weekly.get(2)), "r", "weekly", 2, 1, FleetShares.Unit.RUNNERS, false);
    complete(weekly.get(0));
    assertThat(claim("r1", 5)).isEmpty();
    complete(weekly.get(1));
    assertThat(claimed("r1", 5)).extracting(Job::id).containsExactly(weekly.get(2).id());
  }

  @Test
  @Timeout(120)
  @DisplayName("concurrent claims from many collectors never exceed a share, and every job runs once")
  void concurrentClaims() throws Exception {
    int collectors = 8;
    int amount = 3;
    runners(collectors);
    store.setShares(FleetShares.of(Share.runners("weekly", "r", amount)));
    List<Job> all = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      all.addAll(runnerJobs("weekly", "weekly", "weekly", "weekly", "nightly", "weekly"));
    }
    // A lower bound of what the weekly cadence holds: raised after a claim returns, lowered before the
    // completion is sent. Seen above the share, it proves the store exceeded it.
    AtomicInteger heldAtLeast = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    ConcurrentLinkedQueue<String> done = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(collectors);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < collectors; t++) {
        String me = "r" + t;
        futures.add(pool.submit(() -> {
          int idle = 0;
          while (idle < 200) {
            ClaimResult result = store.claim(ClaimCommand.builder().collector(me).leaseDuration(Duration.ofMinutes(10))
                .limit(2).build());
            if (result.claims().isEmpty()) {
              idle++;
              Thread.onSpinWait();
              continue;
            }
            idle = 0;
            for (Claim c : result.claims()) {
              if (c.job().spec().cadence().equals("weekly")) {
                most.accumulateAndGet(heldAtLeast.incrementAndGet(), Math::max);
              }
            }
            for (Claim c : result.claims()) {
              if (c.job().spec().cadence().equals("weekly")) {
                heldAtLeast.decrementAndGet();
              }
              assertThat(store.complete(LeaseRef.of(c.lease())).status()).isEqualTo(LeaseStatus.OK);
              done.add(c.job().id().toString());
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(100, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(most.get()).as("weekly leases held at once").isLessThanOrEqualTo(amount).isPositive();
    assertThat(done).doesNotHaveDuplicates().hasSize(all.size());
    for (Job j : all) {
      assertThat(reload(j).state()).isEqualTo(JobState.SUCCEEDED);
    }
  }

  @Test
  @Timeout(300)
  @DisplayName("random operations with cadences and shares keep the store equal to the reference model")
  void shareModel() {
    new ShareModelCheck(this::newStore, shareModelOperations()).run();
  }
}

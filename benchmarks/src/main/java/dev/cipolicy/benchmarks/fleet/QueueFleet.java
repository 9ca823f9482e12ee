package dev.cipolicy.benchmarks.fleet;

import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Setup (b), the job queue: the real {@link InMemoryQueueStore} on a simulated clock, one job per test file
 * with its suite's GPU budget and pool and the test's estimate, one collector per host advertising its 8
 * devices (the split H200 node is one unpartitioned host here). A collector claims when a job of it ends, when
 * a run arrives with jobs of its pool, and at every claim interval; it holds its leases until the test's actual
 * duration has passed, then completes them. Reservations are on (they always are in the store).
 *
 * <p>Checked on the way: no device of a host is leased to two running jobs, and every 8-GPU job starts by the
 * reservation bound computed when it first becomes the head of its pool (the job its wait reason shows a host
 * reserved for): the instant the reserved host's holders are estimated to be done (the longest remaining
 * estimate of that host's holders) plus one claim interval.
 */
final class QueueFleet {
  static final Instant EPOCH = Instant.parse("2026-01-03T00:00:00Z"); // a Saturday
  private static final Duration LEASE = Duration.ofDays(3);
  /** The repository of the simulated CI runs. */
  private static final String REPOSITORY = "sim/fleet";
  private static final Duration COLLECTOR_TIMEOUT = Duration.ofMinutes(30);

  /** The simulated clock the store reads. */
  private static final class SimClock implements InstantSource {
    long millis;

    @Override
    public Instant instant() {
      return EPOCH.plusMillis(millis);
    }
  }

  private record Holding(Workload.Test test, Lease lease, long from) {}

  private record End(long at, long seq, String host, Holding holding) {}

  private final Workload workload;
  private final long interval;
  private final Outcome out;
  private final SimClock clock = new SimClock();
  private final InMemoryQueueStore store = new InMemoryQueueStore(clock);
  private final Map<String, boolean[]> devicesInUse = new LinkedHashMap<>();
  private final Map<String, List<Holding>> holdings = new HashMap<>();
  private final Map<String, List<String>> hostsOfPool = new TreeMap<>();
  private final Map<Long, Workload.Test> testOfJob = new HashMap<>();
  private final Map<String, TreeSet<Long>> queuedOfPool = new HashMap<>();
  private final Map<Long, Long> boundOf = new HashMap<>();
  private final Map<Long, Long> actualBoundOf = new HashMap<>();
  /**
   * Bounded heads that their own share refused while they waited, or that could start only by borrowing beyond
   * their share (which lets them go whenever another cadence waits): a refused job is not offered to claims, so
   * while refused it keeps its reservation only dormant and is legitimately not the head.
   */
  private final java.util.Set<Long> shareHeld = new java.util.HashSet<>();
  /** Heads given their bound while a dormant reservation (of a job its share held back) was kept. */
  private final java.util.Set<Long> provisional = new java.util.HashSet<>();
  private final FleetShares shares;
  private final PriorityQueue<End> ends = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
      : Long.compare(a.seq, b.seq));
  private long seq;

  private QueueFleet(Workload workload, long claimIntervalMillis, FleetShares shares) {
    this.workload = workload;
    this.interval = claimIntervalMillis;
    this.shares = shares;
    this.out = new Outcome(shares.isEmpty() ? "(b) job queue" : "(b) job queue with shares", workload.tests.size());
    for (Workload.Host h : workload.hosts) {
      store.registerCollector(h.name(), h.pool(), true, Devices.count(h.layout().gpus()));
      devicesInUse.put(h.name(), new boolean[h.layout().gpus()]);
      holdings.put(h.name(), new ArrayList<>());
      hostsOfPool.computeIfAbsent(h.pool(), p -> new ArrayList<>()).add(h.name());
      queuedOfPool.put(h.pool(), new TreeSet<>());
    }
    // SHARES: the one place fleet shares are set on the store (the policy's fleet.shares, e.g. weekly: one
    // runner of each pool; nightly: some GPUs, borrowing idle ones). Jobs carry their run's cadence (spec()).
    store.setShares(shares);
  }

  /**
   * Runs the workload through the queue.
   *
   * @param workload the runs and hosts
   * @param claimIntervalMillis how often every collector claims, besides the claims events trigger
   * @param shares the fleet shares the store enforces ({@link FleetShares#none()}: none)
   * @return what happened
   */
  static Outcome run(Workload workload, long claimIntervalMillis, FleetShares shares) {
    return run(workload, claimIntervalMillis, shares, false);
  }

  /**
   * Runs the workload through the queue, each run's jobs submitted in plan order or longest estimate first.
   *
   * @param workload the runs and hosts
   * @param claimIntervalMillis how often every collector claims, besides the claims events trigger
   * @param shares the fleet shares the store enforces ({@link FleetShares#none()}: none)
   * @param longestFirst whether a run's jobs are submitted longest estimate first (ties in plan order)
   * @return what happened
   */
  static Outcome run(Workload workload, long claimIntervalMillis, FleetShares shares, boolean longestFirst) {
    QueueFleet fleet = new QueueFleet(workload, claimIntervalMillis, shares);
    fleet.longestFirst = longestFirst;
    fleet.simulate();
    return fleet.out;
  }

  /** The job of a test: its suite's budget and pool, its estimate; named by suite and file. */
  private static JobSpec spec(Workload.Run run, Workload.Test t) {
    // SHARES: the job's cadence is its run's (weekly, nightly; regular for a pull request), which the shares cap.
    return JobSpec.required(t.suite() + "/" + t.file(), t.pool()).withGpus(t.gpus(), Duration.ofMillis(t.estimate()))
        .withCadence(run.cadence());
  }

  private void simulate() {
    int nextRun = 0;
    long nextTick = 0;
    List<Workload.Run> runs = workload.runs;
    long horizon = (runs.isEmpty() ? 0 : runs.get(runs.size() - 1).at()) + 30 * Workload.DAY;
    while (nextRun < runs.size() || !ends.isEmpty() || queuedTotal() > 0) {
      long t = Long.MAX_VALUE;
      if (nextRun < runs.size()) {
        t = runs.get(nextRun).at();
      }
      if (!ends.isEmpty()) {
        t = Math.min(t, ends.peek().at);
      }
      if (queuedTotal() > 0 || t == Long.MAX_VALUE) {
        t = Math.min(t, nextTick);
      }
      if (t >= nextTick) {
        nextTick = (t / interval + 1) * interval;
      }
      if (t > horizon) {
        throw new IllegalStateException("jobs still queued " + (t - horizon) / Workload.HOUR
            + " h after the last arrival plus 30 days: " + queuedOfPool);
      }
      clock.millis = t;
      TreeSet<String> claimers = new TreeSet<>();
      while (!ends.isEmpty() && ends.peek().at == t) {
        End e = ends.poll();
        complete(e.host, e.holding);
        claimers.add(e.host);
      }
      while (nextRun < runs.size() && runs.get(nextRun).at() == t) {
        Workload.Run run = runs.get(nextRun++);
        start(run);
        for (Workload.Test test : run.tests()) {
          claimers.addAll(hostsOfPool.get(test.pool()));
        }
      }
      if (t % interval == 0) {
        claimers.addAll(devicesInUse.keySet());
      }
      for (String host : claimers) {
        claim(host);
      }
      checkHeads();
    }
  }

  private int queuedTotal() {
    int n = 0;
    for (TreeSet<Long> q : queuedOfPool.values()) {
      n += q.size();
    }
    return n;
  }

  private boolean longestFirst;

  private void start(Workload.Run run) {
    if (run.tests().isEmpty()) {
      return;
    }
    List<Workload.Test> tests = new ArrayList<>(run.tests());
    if (longestFirst) {
      tests.sort(java.util.Comparator.comparingLong(Workload.Test::estimate).reversed());
    }
    List<JobSpec> specs = new ArrayList<>();
    for (Workload.Test t : tests) {
      specs.add(spec(run, t));
    }
    // Each run is a CI run of its own (run id = the run's number + 1), submitted with its jobs: in progress at
    // once, outside the in-progress cap, no parent and no backfill.
    CiRun ci = CiRun.of(REPOSITORY, run.id() + 1L, 1, "sim" + run.id(), run.cadence().equals("regular")
        ? "pull_request" : "schedule").withCadence(run.cadence());
    SubmitResult submitted = store.submit(NewRequest.ciRun(ci, specs));
    List<Job> jobs = store.jobs(submitted.request().id());
    if (submitted.status() != SubmitResult.Status.CREATED || jobs.size() != specs.size()) {
      throw new IllegalStateException("run " + run.id() + " created " + jobs.size() + " of " + specs.size()
          + " jobs: " + submitted.status());
    }
    for (int i = 0; i < specs.size(); i++) {
      Job job = jobs.get(i);
      Workload.Test t = tests.get(i);
      testOfJob.put(job.id().value(), t);
      queuedOfPool.get(t.pool()).add(job.id().value());
    }
  }

  private void claim(String host) {
    while (true) {
      List<Claim> claims = store.claim(ClaimCommand.builder().collector(host).leaseDuration(LEASE)
          .collectorTimeout(COLLECTOR_TIMEOUT).limit(8).build()).claims();
      if (claims.isEmpty()) {
        // Every claim records its pool's reservation: read the wait reasons after each one, so that a head
        // whose share refuses it at one claim of an instant and admits it again at the next is seen refused.
        checkHeads();
        return;
      }
      for (Claim c : claims) {
        Workload.Test t = testOfJob.get(c.job().id().value());
        boolean[] inUse = devicesInUse.get(host);
        if (c.lease().devices().size() != t.gpus()) {
          out.doubleBookings++;
        }
        for (int d : c.lease().devices()) {
          if (inUse[d]) {
            out.doubleBookings++;
          }
          inUse[d] = true;
        }
        long claimed = c.job().id().value();
        queuedOfPool.get(t.pool()).remove(claimed);
        Holding h = new Holding(t, c.lease(), clock.millis);
        holdings.get(host).add(h);
        out.jobs++;
        Workload.Run run = workload.runs.get(t.run());
        if (t.gpus() == 8) {
          out.eightGpuWaits.add(clock.millis - run.at());
          Long bound = boundOf.get(c.job().id().value());
          if (bound != null) {
            out.boundChecks++;
            if (clock.millis > bound && shareHeld.contains(c.job().id().value())) {
              out.shareHeldViolations++;
            } else if (clock.millis > bound && provisional.contains(c.job().id().value())) {
              out.provisionalViolations++;
            } else if (clock.millis > bound) {
              out.boundViolations++;
              out.worstOverBound = Math.max(out.worstOverBound, clock.millis - bound);
            }
            if (clock.millis > actualBoundOf.get(c.job().id().value()) && !shareHeld.contains(c.job().id().value())
                && !provisional.contains(c.job().id().value())) {
              out.actualBoundViolations++;
            }
          }
        }
        out.jobStarted(run.cadence(), t.pool(), t.gpus());
        out.ran(t, clock.millis, clock.millis + t.actual());
        ends.add(new End(clock.millis + t.actual(), seq++, host, h));
      }
      checkHeads();
    }
  }

  private void complete(String host, Holding h) {
    LeaseStatus status = store.complete(LeaseRef.of(h.lease())).status();
    if (status != LeaseStatus.OK) {
      throw new IllegalStateException("completing " + h.test().file() + " on " + host + ": " + status);
    }
    boolean[] inUse = devicesInUse.get(host);
    for (int d : h.lease().devices()) {
      inUse[d] = false;
    }
    holdings.get(host).remove(h);
    out.jobEnded(workload.runs.get(h.test().run()).cadence(), h.test().pool(), h.test().gpus());
  }

  /**
   * Whether a queued job needs more than what its cadence's share of the pool has left (counting the leases the
   * harness holds): it is then admitted only by borrowing, which a claim refuses while another cadence waits.
   */
  private boolean beyondShare(String pool, JobSpec job) {
    var share = shares.share(job.cadence(), pool);
    if (share.isEmpty()) {
      return false;
    }
    int held = 0;
    for (String host : hostsOfPool.get(pool)) {
      for (Holding h : holdings.get(host)) {
        Workload.Run run = workload.runs.get(h.test().run());
        if (run.cadence().equals(job.cadence())) {
          held += share.get().cost(spec(run, h.test()));
        }
      }
    }
    return held + share.get().cost(job) > share.get().amount();
  }

  /**
   * Gives the bound to each 8-GPU job the first time it is the head of its pool and still waits: the job the
   * store's wait reasons show as {@link WaitReason.Kind#RESERVED_FOR_IT}, which keeps its reservation until it
   * starts (an older job that becomes eligible later does not take it). A head that its own share refuses
   * afterwards keeps its reservation only dormant; it is counted apart. A head reserved for while another job
   * keeps a dormant reservation (its wait reason, {@link WaitReason.Kind#SHARE_FULL}, says so) holds it only
   * until that job is admitted again: it is counted apart too, unless it is still the head once no reservation
   * is dormant, when it is given a new bound.
   */
  private void checkHeads() {
    for (Map.Entry<String, TreeSet<Long>> e : queuedOfPool.entrySet()) {
      boolean eight = false;
      for (long id : e.getValue()) {
        if (testOfJob.get(id).gpus() == 8) {
          eight = true;
          break;
        }
      }
      if (!eight) {
        continue;
      }
      List<JobWait> waits = store.waitingJobs(e.getKey(), COLLECTOR_TIMEOUT);
      boolean dormant = false;
      for (JobWait w : waits) {
        dormant |= w.reason().dormant();
      }
      for (JobWait w : waits) {
        long head = w.job().id().value();
        if (!dormant && w.reason().kind() == WaitReason.Kind.RESERVED_FOR_IT && provisional.remove(head)) {
          boundOf.remove(head); // it holds the pool's reservation itself now: a new bound from here
        }
        if (boundOf.containsKey(head) && (w.reason().kind() == WaitReason.Kind.SHARE_FULL
            || beyondShare(e.getKey(), w.job().spec()))) {
          shareHeld.add(head); // its own share refused it, or may at any claim, after it was given its bound
        }
        if (w.reason().kind() != WaitReason.Kind.RESERVED_FOR_IT || w.job().spec().gpus() != 8
            || boundOf.containsKey(head)) {
          continue;
        }
        // The bound from the reserved host's holders (the host the wait reason names): the longest remaining
        // estimate among them, plus one claim interval.
        long free = clock.millis;
        long freeActual = clock.millis;
        for (Holding h : holdings.get(w.reason().host().orElseThrow())) {
          free = Math.max(free, h.from() + h.test().estimate());
          freeActual = Math.max(freeActual, h.from() + h.test().actual());
        }
        boundOf.put(head, free + interval);
        if (dormant) {
          provisional.add(head);
        }
        // The same bound with the holders' actual ends: what the head could expect had their estimates held.
        actualBoundOf.put(head, Math.max(free, freeActual) + interval);
      }
    }
  }
}

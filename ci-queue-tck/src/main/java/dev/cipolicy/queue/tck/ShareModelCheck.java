package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.FleetShares.Share;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.quicktheories.core.Gen;

/**
 * The model check of fleet shares: QuickTheories generates scenarios of {@value #SCENARIO_LENGTH} operations
 * (start a run whose jobs have cadences, on a runner pool {@code r} and a GPU pool {@code g}; claim from one
 * of five collectors; complete, fail, release; crash a collector; advance the clock; collector heartbeats;
 * replace the shares with one of several sets, with and without borrowing; cancel a run; read the wait
 * reasons), runs each on the store under test and on {@link ReferenceQueueStore}, compares every result, and
 * after every operation checks the invariants on the store under test: no device held by two live leases; a
 * claim never takes a cadence beyond a share that does not borrow; no job lost (every job of every run is still
 * there) or run twice (succeeded by one completion at most). Every twentieth operation and at the end of a
 * scenario the whole state of the two stores is compared. A share that borrows may go beyond its amount only as
 * {@link dev.cipolicy.queue.placement.ShareLedger} allows, which the comparison with the model checks.
 *
 * <p>Reservations are checked on their own, from the store's wait reasons (the job shown
 * {@link WaitReason.Kind#RESERVED_FOR_IT} and its host, free count and expected instant), independently of the
 * placement rules both stores share: a claim of the reserved host whose first GPU job is not the reserved job
 * takes a job with an estimate that ends by the reservation's instant, and takes the reserved job when its
 * devices are free; and a reservation is sticky: the job reserved after a claim of the GPU pool (one that took
 * only GPU jobs) still holds its host after the next one, as long as it is queued, its share (none, or one that
 * does not borrow) admits it, and its host is live; when its share refuses it, it keeps the reservation
 * dormant (its {@link WaitReason.Kind#SHARE_FULL} sentence names the host), and once admitted again it holds
 * it again. The reservation shown beside a dormant one is the head's among the others, claim by claim, and is
 * not checked for stickiness.
 */
final class ShareModelCheck {

  /** How many operations each scenario runs, on a new store. */
  static final int SCENARIO_LENGTH = 100;

  static final Duration LEASE = Duration.ofSeconds(60);
  private static final String[] COLLECTORS = {"r0", "r1", "r2", "g0", "g1"};
  private static final String[] TAGS = {"r", "r", "r", "g", "g"};
  private static final Devices[] DEVICES = {Devices.none(), Devices.none(), Devices.none(),
      Devices.grouped(List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7))), Devices.count(4)};
  private static final String[] CADENCES = {"", "weekly", "nightly", "hourly"};
  /** The share sets the scenarios switch between. */
  static final List<FleetShares> SHARE_SETS = List.of(
      FleetShares.none(),
      FleetShares.of(Share.runners("weekly", "r", 1), Share.gpus("weekly", "g", 4)),
      FleetShares.of(Share.runners("weekly", "r", 1).borrowing(), Share.runners("nightly", "r", 1),
          Share.gpus("nightly", "g", 2).borrowing()),
      FleetShares.of(Share.runners("weekly", "r", 2).borrowing(), Share.runners("nightly", "r", 1).borrowing(),
          Share.runners("hourly", "g", 1), Share.gpus("weekly", "g", 6)),
      FleetShares.of(Share.gpus("hourly", "g", 3), Share.gpus("weekly", "g", 1).borrowing(),
          Share.runners("hourly", "r", 1)));

  /** What an operation does, with its weight. */
  enum Op {
    START(12), CLAIM(30), COMPLETE(20), FAIL(5), RELEASE(4), CRASH(2), ADVANCE(6), HEARTBEAT(6), SHARES(3),
    CANCEL(2), WAITS(6);

    final int weight;

    Op(int weight) {
      this.weight = weight;
    }

    static Op pick(int roll) {
      return WeightedPick.pick(values(), op -> op.weight, roll);
    }
  }

  /** One generated operation and three small parameters it interprets. */
  record Command(Op op, int a, int b, int c) {
    @Override
    public String toString() {
      return op + "(" + a + "," + b + "," + c + ")";
    }
  }

  /** One scenario: the first share set and the operations. */
  record Scenario(int shares, List<Command> commands) {
    @Override
    public String toString() {
      return "shares=" + shares + " " + commands;
    }
  }

  /** A reservation as the wait reasons of the GPU pool show it. */
  record Shown(Job job, String host, int free, Instant until) {}

  private final Function<InstantSource, QueueStore> stores;
  private final long operations;
  private final AtomicLong executed = new AtomicLong();

  /**
   * A check of at least {@code operations} operations.
   *
   * @param stores new, empty stores under test, on the given clock
   * @param operations how many operations to run in all (rounded up to whole scenarios)
   */
  ShareModelCheck(Function<InstantSource, QueueStore> stores, long operations) {
    this.stores = stores;
    this.operations = operations;
  }

  /**
   * Runs the scenarios.
   *
   * @return how many operations ran
   */
  long run() {
    Gen<Integer> small = integers().between(0, 999);
    Gen<Command> command = integers().between(0, 999).zip(small, small, small,
        (op, a, b, c) -> new Command(Op.pick(op), a, b, c));
    Gen<Scenario> scenarios = lists().of(command).ofSize(SCENARIO_LENGTH)
        .zip(integers().between(0, SHARE_SETS.size() - 1), (cmds, s) -> new Scenario(s, cmds));
    // QuickTheories may run fewer examples than asked (seen: 9,999 of 10,000), so the check goes on with
    // the scenarios still missing until the count is reached; a run that executes none fails the check
    // rather than looping.
    while (executed.get() < operations) {
      long before = executed.get();
      int examples = (int) Math.max(1, (operations - before + SCENARIO_LENGTH - 1) / SCENARIO_LENGTH);
      qt().withExamples(examples).withShrinkCycles(200).forAll(scenarios).checkAssert(s -> new Run(s).execute());
      assertThat(executed.get()).as("operations run by a batch of %d scenarios", examples).isGreaterThan(before);
    }
    return executed.get();
  }

  /** One scenario on a fresh pair of stores. */
  private final class Run {
    private final Scenario scenario;
    private final SettableClock clock = new SettableClock(Instant.parse("2026-01-05T09:00:00Z"));
    private final QueueStore real = stores.apply(clock);
    private final ReferenceQueueStore model = new ReferenceQueueStore(clock);
    /** Runs started: the real id and the model's. */
    private final List<RequestId[]> runs = new ArrayList<>();
    /** Leases the collectors believe they hold: real and model. */
    private final List<Lease[]> held = new ArrayList<>();
    /** Successful completions by job id (real). */
    private final Map<Long, Integer> successes = new HashMap<>();
    private final Set<Long> seenJobs = new HashSet<>();
    private FleetShares shares;
    private int step;
    /** The reservation the GPU pool showed after its last claim, if any. */
    private @org.jspecify.annotations.Nullable Shown kept;
    /** The dormant reservation the GPU pool showed after its last claim (a job and its host), if any. */
    private @org.jspecify.annotations.Nullable Shown dormant;

    Run(Scenario scenario) {
      this.scenario = scenario;
      for (int i = 0; i < COLLECTORS.length; i++) {
        real.registerCollector(COLLECTORS[i], TAGS[i], true, DEVICES[i]);
        model.registerCollector(COLLECTORS[i], TAGS[i], true, DEVICES[i]);
      }
      shares = SHARE_SETS.get(scenario.shares());
      real.setShares(shares);
      model.setShares(shares);
    }

    void execute() {
      for (Command cmd : scenario.commands()) {
        step++;
        try {
          apply(cmd);
          executed.incrementAndGet();
          checkInvariants();
          if (step % 20 == 0 || step == scenario.commands().size()) {
            assertThat(state(real, true)).as("state").isEqualTo(state(model, false));
          }
        } catch (AssertionError e) {
          throw new AssertionError("fails at step " + step + " " + cmd + " of " + scenario + "\n" + e.getMessage(),
              e);
        }
      }
    }

    private void apply(Command cmd) {
      switch (cmd.op()) {
        case START -> start(cmd);
        case CLAIM -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          ClaimCommand claim = ClaimCommand.builder().collector(collector).leaseDuration(LEASE).maxCrashRescues(1)
              .limit(1 + cmd.b() % 3).build();
          boolean gpu = TAGS[cmd.a() % COLLECTORS.length].equals("g");
          Shown before = gpu && sameSnapshot(collector) ? shown() : null;
          ClaimResult rc = real.claim(claim);
          ClaimResult mc = model.claim(claim);
          assertThat(render(rc)).as("claim").isEqualTo(renderModel(mc));
          if (gpu) {
            checkReservation(collector, before, rc);
          }
          for (int i = 0; i < rc.claims().size(); i++) {
            held.add(new Lease[] {rc.claims().get(i).lease(), mc.claims().get(i).lease()});
          }
          checkCaps(rc);
        }
        case COMPLETE, FAIL, RELEASE -> {
          if (held.isEmpty()) {
            return;
          }
          Lease[] lease = held.remove(cmd.a() % held.size());
          LeaseResult rr;
          LeaseResult mr;
          if (cmd.op() == Op.COMPLETE) {
            rr = real.complete(LeaseRef.of(lease[0]));
            mr = model.complete(LeaseRef.of(lease[1]));
            if (rr.job().isPresent() && rr.job().get().state() == JobState.SUCCEEDED
                && rr.status() == dev.cipolicy.queue.spi.LeaseStatus.OK) {
              successes.merge(rr.job().get().id().value(), 1, Integer::sum);
            }
          } else if (cmd.op() == Op.FAIL) {
            Failure f = cmd.b() % 2 == 0 ? Failure.transientFailure("flaky") : Failure.permanent("broken");
            rr = real.fail(LeaseRef.of(lease[0]), f, 1);
            mr = model.fail(LeaseRef.of(lease[1]), f, 1);
          } else {
            rr = real.release(LeaseRef.of(lease[0]));
            mr = model.release(LeaseRef.of(lease[1]));
          }
          assertThat(rr.status() + " " + rr.job().map(j -> render(j, true)))
              .isEqualTo(mr.status() + " " + mr.job().map(j -> render(j, false)));
        }
        case CRASH -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          held.removeIf(l -> l[0].collector().equals(collector));
        }
        case ADVANCE -> clock.advance(Duration.ofSeconds(10L * (cmd.a() % 8)));
        case HEARTBEAT -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          assertThat(real.collectorHeartbeat(collector)).isEqualTo(model.collectorHeartbeat(collector));
        }
        case SHARES -> {
          shares = SHARE_SETS.get(cmd.a() % SHARE_SETS.size());
          real.setShares(shares);
          model.setShares(shares);
          assertThat(real.shares()).isEqualTo(shares);
        }
        case CANCEL -> {
          if (runs.isEmpty()) {
            return;
          }
          RequestId[] pair = runs.get(cmd.a() % runs.size());
          var rc = real.cancel(pair[0], "stop");
          var mc = model.cancel(pair[1], "stop");
          assertThat(rc.status() + " " + rc.queuedJobsCancelled() + " " + rc.leasedJobsFlagged())
              .isEqualTo(mc.status() + " " + mc.queuedJobsCancelled() + " " + mc.leasedJobsFlagged());
        }
        case WAITS -> {
          String tag = cmd.a() % 2 == 0 ? "r" : "g";
          assertThat(waits(real.waitingJobs(tag, LEASE), true)).as("waits of " + tag)
              .isEqualTo(waits(model.waitingJobs(tag, LEASE), false));
        }
      }
    }

    private void start(Command cmd) {
      String sha = "s" + (runs.size() + 1);
      Request r = real.submit(NewRequest.master(sha, null)).request();
      Request m = model.submit(NewRequest.master(sha, null)).request();
      List<JobSpec> specs = new ArrayList<>();
      int n = 1 + cmd.a() % 4;
      for (int i = 0; i < n; i++) {
        int roll = cmd.b() / (i + 1) + cmd.c() * (i + 3);
        String cadence = CADENCES[(roll / 7) % CADENCES.length];
        if (roll % 3 == 0) {
          specs.add(JobSpec.required("j" + i, "r").withCadence(cadence));
        } else {
          int gpus = roll % 5 == 0 ? 0 : 1 + roll % 4;
          specs.add(JobSpec.required("j" + i, "g").withGpus(gpus, Duration.ofSeconds(20L * (roll % 3)))
              .withCadence(cadence));
        }
      }
      StartResult rs = real.startRequest(StartCommand.builder().requestId(r.id()).jobs(specs).maxInProgress(1_000)
          .build());
      StartResult ms = model.startRequest(StartCommand.builder().requestId(m.id()).jobs(specs).maxInProgress(1_000)
          .build());
      assertThat(rs.status()).isEqualTo(ms.status());
      assertThat(rs.jobs().stream().map(j -> render(j, true)).toList())
          .isEqualTo(ms.jobs().stream().map(j -> render(j, false)).toList());
      runs.add(new RequestId[] {r.id(), m.id()});
    }

    /**
     * Whether the GPU pool's wait reasons read now show what the claimer's next claim places from: the
     * claimer is live already (the claim's heartbeat changes no host set) and no lease of the pool has expired
     * (the claim processes expiries first).
     */
    private boolean sameSnapshot(String claimer) {
      Instant now = real.now();
      if (!real.collector(claimer).orElseThrow().isLiveAt(now, LEASE)) {
        return false;
      }
      for (Job j : allJobs(real)) {
        if (j.state() == JobState.LEASED && j.spec().collectorTag().equals("g") && !j.lease().orElseThrow()
            .isLiveAt(now)) {
          return false;
        }
      }
      return true;
    }

    /**
     * The dormant reservation the GPU pool's wait reasons show now (its job, refused by its share, and the host
     * it keeps; free count and instant unused), if any (at most one).
     */
    private @org.jspecify.annotations.Nullable Shown shownDormant() {
      Shown found = null;
      for (JobWait w : real.waitingJobs("g", LEASE)) {
        if (!w.reason().dormant()) {
          continue;
        }
        assertThat(w.reason().kind()).as("kind of dormant %s", w.reason().sentence())
            .isEqualTo(WaitReason.Kind.SHARE_FULL);
        assertThat(found).as("a second dormant reservation in pool g").isNull();
        found = new Shown(w.job(), w.reason().host().orElseThrow(), 0, real.now());
      }
      return found;
    }

    /** The reservation the GPU pool's wait reasons show now, if any (at most one). */
    private @org.jspecify.annotations.Nullable Shown shown() {
      Shown found = null;
      for (JobWait w : real.waitingJobs("g", LEASE)) {
        if (w.reason().kind() != WaitReason.Kind.RESERVED_FOR_IT) {
          continue;
        }
        assertThat(found).as("a second reservation in pool g").isNull();
        found = new Shown(w.job(), w.reason().host().orElseThrow(), w.reason().free().orElseThrow(),
            w.reason().expectedFree().orElseThrow());
      }
      return found;
    }

    /**
     * After a claim of the GPU pool: the claim honoured the reservation shown before it (when that showed the
     * claim's snapshot), and the reservation shown after the previous claim is still the pool's if it should
     * be.
     */
    private void checkReservation(String claimer, @org.jspecify.annotations.Nullable Shown before, ClaimResult claimed) {
      Instant now = real.now();
      if (before != null && before.host().equals(claimer)) {
        Job first = null;
        for (Claim c : claimed.claims()) {
          if (c.job().spec().gpus() > 0) {
            first = c.job();
            break;
          }
        }
        if (before.free() >= before.job().spec().gpus()) {
          assertThat(first).as("the first GPU claim of %s, reserved with its devices free", claimer).isNotNull();
        }
        if (first != null && !first.id().equals(before.job().id())) {
          assertThat(before.free()).as("free devices of %s reserved for job %s when job %s was claimed", claimer,
              before.job().id(), first.id()).isLessThan(before.job().spec().gpus());
          assertThat(first.spec().estimate().isZero()).as("backfilled job %s has an estimate", first.id()).isFalse();
          assertThat(now.plus(first.spec().estimate())).as("estimated end of job %s backfilled on %s, reserved until"
              + " %s", first.id(), claimer, before.until()).isBeforeOrEqualTo(before.until());
        }
      }
      Shown after = shown();
      Shown afterDormant = shownDormant();
      Shown previous = kept;
      Shown previousDormant = dormant;
      // The pool records its reservation after the claim's GPU jobs; jobs that need no GPU, claimed after them,
      // may change what the shares admit, so the reasons read now show the recorded one only without them.
      boolean gpuOnly = claimed.claims().stream().allMatch(c -> c.job().spec().gpus() > 0);
      kept = gpuOnly ? after : null;
      dormant = gpuOnly ? afterDormant : null;
      if (previousDormant != null) {
        // The reservation shown beside a dormant one was the head's among the others, for that claim only;
        // the dormant one stays its job's while the share refuses it and is its job's again once admitted.
        previous = previousDormant;
      }
      if (previous == null) {
        return;
      }
      Job job = real.job(previous.job().id()).orElseThrow();
      var share = shares.share(job.spec().cadence(), "g");
      if (job.state() != JobState.QUEUED || (share.isPresent() && share.get().borrow())) {
        return;
      }
      int largest = 0;
      boolean hostLive = false;
      for (int i = 0; i < COLLECTORS.length; i++) {
        boolean live = COLLECTORS[i].equals(claimer) || real.collector(COLLECTORS[i]).orElseThrow().isLiveAt(now, LEASE);
        if (TAGS[i].equals("g") && live) {
          largest = Math.max(largest, DEVICES[i].size());
          hostLive |= COLLECTORS[i].equals(previous.host());
        }
      }
      if (largest < job.spec().gpus()) {
        return;
      }
      String context = render(claimed) + "\n" + waits(real.waitingJobs("g", LEASE), true);
      for (JobWait w : real.waitingJobs("g", LEASE)) {
        if (w.job().id().equals(job.id()) && w.reason().kind() == WaitReason.Kind.SHARE_FULL) {
          // Refused by its own share: it keeps its reservation, dormant, on the same host.
          assertThat(afterDormant).as("the dormant reservation of job %s refused by its share after a claim of"
              + " %s: %s", job.id(), claimer, context).isNotNull();
          assertThat(afterDormant.job().id()).as("the job of the dormant reservation: %s", context)
              .isEqualTo(job.id());
          if (hostLive) {
            assertThat(afterDormant.host()).as("the host of job %s's dormant reservation", job.id())
                .isEqualTo(previous.host());
          }
          return;
        }
      }
      assertThat(after).as("the reservation of job %s on %s after a claim of %s: %s", job.id(), previous.host(),
          claimer, context).isNotNull();
      assertThat(after.job().id()).as("the job holding the reservation kept on %s: %s", previous.host(), context)
          .isEqualTo(job.id());
      if (hostLive) {
        assertThat(after.host()).as("the host kept for job %s", job.id()).isEqualTo(previous.host());
      }
    }

    /** After a claim: every cadence it gave a job to is within each of its shares that does not borrow. */
    private void checkCaps(ClaimResult claimed) {
      Instant now = real.now();
      for (Claim c : claimed.claims()) {
        JobSpec spec = c.job().spec();
        var share = shares.share(spec.cadence(), spec.collectorTag());
        if (share.isEmpty() || share.get().borrow()) {
          continue;
        }
        int holding = 0;
        for (Job j : allJobs(real)) {
          if (j.state() == JobState.LEASED && j.lease().orElseThrow().isLiveAt(now)
              && j.spec().cadence().equals(spec.cadence()) && j.spec().collectorTag().equals(spec.collectorTag())) {
            holding += share.get().cost(j.spec());
          }
        }
        assertThat(holding).as("%s holds of its share %s", spec.cadence(), share.get())
            .isLessThanOrEqualTo(share.get().amount());
      }
    }

    private void checkInvariants() {
      Instant now = real.now();
      Set<String> devices = new HashSet<>();
      List<Job> all = allJobs(real);
      Set<Long> ids = new HashSet<>();
      for (Job j : all) {
        ids.add(j.id().value());
        if (j.state() == JobState.LEASED && j.lease().orElseThrow().isLiveAt(now)) {
          Lease l = j.lease().get();
          assertThat(l.devices()).hasSize(j.spec().gpus());
          for (int d : l.devices()) {
            assertThat(devices.add(l.collector() + "/" + d)).as("device %s of %s held twice", d, l.collector())
                .isTrue();
          }
        }
        if (j.state() == JobState.SUCCEEDED) {
          assertThat(successes.getOrDefault(j.id().value(), 0)).as("completions of succeeded job %s", j.id())
              .isEqualTo(1);
        }
      }
      assertThat(successes.values()).as("completions per job").allMatch(k -> k <= 1);
      assertThat(ids).as("jobs still there").containsAll(seenJobs);
      seenJobs.addAll(ids);
    }

    private List<Job> allJobs(QueueStore store) {
      List<Job> out = new ArrayList<>();
      for (RequestId[] pair : runs) {
        out.addAll(store.jobs(store == model ? pair[1] : pair[0]));
      }
      return out;
    }

    private String state(QueueStore store, boolean isReal) {
      return allJobs(store).stream().map(j -> render(j, isReal)).collect(Collectors.joining("\n"));
    }

    private String render(ClaimResult r) {
      return r.status() + " " + r.claims().stream().map(c -> render(c.job(), true)).collect(Collectors.joining("; "));
    }

    private String renderModel(ClaimResult r) {
      return r.status() + " " + r.claims().stream().map(c -> render(c.job(), false)).collect(Collectors.joining("; "));
    }

    private String waits(List<JobWait> waits, boolean isReal) {
      return waits.stream().map(w -> render(w.job(), isReal) + " : " + w.reason())
          .collect(Collectors.joining("\n"));
    }

    /** A job by its run's position (the two stores number requests alike, but say so explicitly). */
    private String render(Job j, boolean isReal) {
      int run = -1;
      for (int i = 0; i < runs.size(); i++) {
        if (runs.get(i)[isReal ? 0 : 1].equals(j.requestId())) {
          run = i;
        }
      }
      return "run" + run + " " + j.spec() + " " + j.state() + " attempt=" + j.attempt() + " rescues="
          + j.crashRescues() + " retries=" + j.transientRetries() + " affinity=" + j.affinity() + " lease="
          + j.lease().map(QueueModelCheck::render) + " flagged=" + j.cancelRequested();
    }
  }
}

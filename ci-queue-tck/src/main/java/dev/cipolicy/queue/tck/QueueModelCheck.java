package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.ComparisonEvent;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RetryResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.quicktheories.core.Gen;

/**
 * The model-based test of a store: QuickTheories generates command lists (submit, a CI run submission that may
 * attach, supersede or be superseded, attach, tick from one of three sites, claim from one of four collectors, heartbeat, complete, fail, release, a stale update, a
 * crash, cancel, clock advances, collector heartbeats and (de)activation, a collector registering again with
 * another inventory, retiring a collector, purge, and for a store with operator controls an operator's retry of a
 * job and pausing or resuming a pool), runs each command through real
 * engines on the store under test and on {@link ReferenceQueueStore}, and after every step compares the
 * results, the whole state, the history (read in pages of two) and the parents both stores know, and checks
 * the invariants and the order. On failure QuickTheories shrinks the list and reports the seed.
 */
final class QueueModelCheck {

  /** What a command does. */
  enum Op {
    SUBMIT(10), ATTACH(4), TICK(14), START_STALE_VIEW(3), CLAIM(18), HEARTBEAT(5), COMPLETE(20), FAIL(6),
    RELEASE(2), STALE(5), CRASH(3), CANCEL(2), ADVANCE(6), COLLECTOR_HEARTBEAT(2), TOGGLE_ACTIVE(1),
    COMPLETE_ALL(6), PURGE(4), START_GPU(5), SUBMIT_CI(5), REREGISTER(8), RETIRE(2), RETRY(4), PAUSE(3);

    final int weight;

    Op(int weight) {
      this.weight = weight;
    }

    static Op pick(int roll) {
      return WeightedPick.pick(values(), op -> op.weight, roll);
    }
  }

  /** One generated command: an operation and three small parameters it interprets. */
  record Command(Op op, int a, int b, int c) {
    @Override
    public String toString() {
      return op + "(" + a + "," + b + "," + c + ")";
    }
  }

  /** One generated scenario: the cap, the two budgets and the commands. */
  record Scenario(int maxInProgress, int crashBudget, int transientBudget, List<Command> commands) {
    @Override
    public String toString() {
      return "K=" + maxInProgress + " crashBudget=" + crashBudget + " transientBudget=" + transientBudget + " "
          + commands;
    }
  }

  static final Duration LEASE = Duration.ofSeconds(60);
  private static final String[] COLLECTORS = {"c0", "c1", "c2", "c3"};
  private static final String[] TAGS = {"x", "x", "y", "x"};
  /** The devices each collector advertises: two grouped hosts of tag x, a CPU-only one, a small one of y. */
  private static final Devices[] DEVICES = {Devices.grouped(List.of(List.of(0, 1), List.of(2, 3))), Devices.none(),
      Devices.count(2), Devices.count(4)};

  private final Function<InstantSource, QueueStore> stores;
  private final int examples;
  private final boolean nanosecondClock;
  private final boolean operatorControls;

  /**
   * A check on a clock that, when {@code nanosecondClock}, starts at an odd nanosecond and moves by steps
   * of 20 seconds plus an odd number of nanoseconds, so that the instants the engines read are rarely whole
   * microseconds: a store that kept them at another precision than the reference model would differ from it.
   *
   * @param stores new, empty stores under test, on the given clock
   * @param examples how many scenarios to run
   * @param nanosecondClock whether the clock ticks in nanoseconds
   * @param operatorControls whether the store has operator controls (retry, pause); without them those
   *     commands do nothing
   */
  QueueModelCheck(Function<InstantSource, QueueStore> stores, int examples, boolean nanosecondClock,
      boolean operatorControls) {
    this.stores = stores;
    this.examples = examples;
    this.nanosecondClock = nanosecondClock;
    this.operatorControls = operatorControls;
  }

  void run() {
    Gen<Integer> small = integers().between(0, 999);
    Gen<Command> command = integers().between(0, 999).zip(small, small, small,
        (op, a, b, c) -> new Command(Op.pick(op), a, b, c));
    Gen<Scenario> scenarios = lists().of(command).ofSizeBetween(1, 80).zip(integers().between(1, 2),
        integers().between(0, 2), integers().between(0, 2), (cmds, k, crash, trans) -> new Scenario(k, crash,
            trans, cmds));
    qt().withExamples(examples).withShrinkCycles(300).forAll(scenarios).checkAssert(s -> new Run(s).execute());
  }

  /** The execution of one scenario. */
  private final class Run {
    private final Scenario scenario;
    private final SettableClock clock = new SettableClock(nanosecondClock
        ? Instant.parse("2026-01-05T09:00:00.123456789Z") : Instant.parse("2026-01-05T09:00:00Z"));
    private final QueueStore real = stores.apply(clock);
    private final ReferenceQueueStore model = new ReferenceQueueStore(clock);
    private final QueueSettings settings;
    private final List<JobQueue> realSites = new ArrayList<>();
    private final List<JobQueue> modelSites = new ArrayList<>();
    /** Request ids of the store under test to the model's, and the pairs in creation order. */
    private final Map<RequestId, RequestId> toModel = new HashMap<>();
    private final List<RequestId[]> known = new ArrayList<>();
    /** Leases the collectors believe they hold: real and model lease. */
    private final List<Lease[]> held = new ArrayList<>();
    /** Leases known to be stale. */
    private final List<Lease[]> retired = new ArrayList<>();
    /** Leases of crashed collectors, live until they expire. */
    private final List<Lease[]> abandoned = new ArrayList<>();
    private final Map<String, Integer> successes = new HashMap<>();
    private Map<String, String> lastJobs = new LinkedHashMap<>();
    private Map<String, String> terminal = new LinkedHashMap<>();
    private int step;

    Run(Scenario scenario) {
      this.scenario = scenario;
      this.settings = QueueSettings.builder().maxInProgress(scenario.maxInProgress()).leaseDuration(LEASE)
          .collectorTimeout(LEASE).maxCrashRescues(scenario.crashBudget())
          .maxTransientRetries(scenario.transientBudget()).addBenchmarkGroups("g1", "g2")
          .addCollectorTargets(CollectorTarget.required("x"), CollectorTarget.optional("y")).build();
      for (int i = 0; i < 3; i++) {
        realSites.add(JobQueue.of(real, settings));
        modelSites.add(JobQueue.of(model, settings));
      }
      for (int i = 0; i < COLLECTORS.length; i++) {
        real.registerCollector(COLLECTORS[i], TAGS[i], true, DEVICES[i]);
        model.registerCollector(COLLECTORS[i], TAGS[i], true, DEVICES[i]);
      }
    }

    void execute() {
      for (Command command : scenario.commands()) {
        step++;
        try {
          apply(command);
          checkState(command);
        } catch (AssertionError e) {
          throw new AssertionError("fails at step " + step + " of " + scenario.commands().size()
              + "; the commands up to it: " + scenario.commands().subList(0, step) + "\n" + e.getMessage(), e);
        }
      }
    }

    private String at(Command command) {
      return "step " + step + " " + command;
    }

    private void apply(Command cmd) {
      JobQueue r = realSites.get(0);
      JobQueue m = modelSites.get(0);
      switch (cmd.op()) {
        case SUBMIT -> submit(cmd, r, m);
        case SUBMIT_CI -> submitCiRun(cmd, r, m);
        case ATTACH -> {
          if (known.isEmpty()) {
            return;
          }
          RequestId[] pair = known.get(cmd.a() % known.size());
          String sha = sha(cmd.b());
          String parent = parent(cmd.c());
          if (parent == null || sha.equals(parent)) {
            return;
          }
          assertThat(render(r.attachArtifacts(pair[0], sha, parent))).as(at(cmd))
              .isEqualTo(render(m.attachArtifacts(pair[1], sha, parent)));
        }
        case TICK -> {
          int site = cmd.a() % 3;
          TickResult rt = realSites.get(site).tick();
          TickResult mt = modelSites.get(site).tick();
          assertThat(render(rt, this::mapped)).as(at(cmd)).isEqualTo(render(mt, RequestId::toString));
        }
        case START_STALE_VIEW -> {
          // A site acting on an old view: it asks the store to start any known request; the store alone
          // enforces readiness and the cap.
          if (known.isEmpty()) {
            return;
          }
          RequestId[] pair = known.get(cmd.a() % known.size());
          Request request = model.request(pair[1]).orElseThrow();
          StartResult rs = real.startRequest(StartCommand.builder().requestId(pair[0]).jobs(settings.jobsFor(request))
              .backfillParent(true).maxInProgress(scenario.maxInProgress()).build());
          StartResult ms = model.startRequest(StartCommand.builder().requestId(pair[1]).jobs(settings.jobsFor(request))
              .backfillParent(true).maxInProgress(scenario.maxInProgress()).build());
          assertThat(render(rs, this::mapped)).as(at(cmd)).isEqualTo(render(ms, RequestId::toString));
        }
        case START_GPU -> {
          // A host starting a request whose jobs need GPUs (1 to 4 on tag x, 1 or 2 on tag y), with estimates
          // of 0, 20 or 40 seconds, directly through the store.
          if (known.isEmpty()) {
            return;
          }
          RequestId[] pair = known.get(cmd.a() % known.size());
          List<JobSpec> specs = List.of(
              JobSpec.required("gpuA", "x").withGpus(1 + cmd.b() % 4, Duration.ofSeconds(20L * (cmd.c() % 3))),
              JobSpec.required("gpuB", "x").withGpus(1 + cmd.c() % 4, Duration.ofSeconds(20L * (cmd.b() % 3))),
              JobSpec.optionalJob("gpuC", "y").withGpus(1 + cmd.a() % 2, Duration.ofSeconds(20)));
          StartResult rs = real.startRequest(StartCommand.builder().requestId(pair[0]).jobs(specs)
              .maxInProgress(scenario.maxInProgress()).build());
          StartResult ms = model.startRequest(StartCommand.builder().requestId(pair[1]).jobs(specs)
              .maxInProgress(scenario.maxInProgress()).build());
          assertThat(render(rs, this::mapped)).as(at(cmd)).isEqualTo(render(ms, RequestId::toString));
        }
        case CLAIM -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          int limit = 1 + cmd.b() % 2;
          // Read from the model, whose state equalled the store's after the last step (no round trip).
          boolean paused = model.collector(collector).map(c -> model.pausedPools().contains(c.tag())).orElse(false);
          ClaimResult rc = r.claim(collector, limit);
          ClaimResult mc = m.claim(collector, limit);
          assertThat(render(rc, this::mapped)).as(at(cmd)).isEqualTo(render(mc, RequestId::toString));
          if (paused) {
            assertThat(rc.claims()).as("claims of %s in a paused pool at %s", collector, at(cmd)).isEmpty();
          }
          for (int i = 0; i < rc.claims().size(); i++) {
            held.add(new Lease[] {rc.claims().get(i).lease(), mc.claims().get(i).lease()});
          }
        }
        case HEARTBEAT, COMPLETE, FAIL, RELEASE -> update(cmd, r, m);
        case COMPLETE_ALL -> completeAll(cmd, r, m);
        case STALE -> stale(cmd);
        case CRASH -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          for (int i = held.size() - 1; i >= 0; i--) {
            if (held.get(i)[0].collector().equals(collector)) {
              abandoned.add(held.remove(i));
            }
          }
        }
        case CANCEL -> {
          if (known.isEmpty()) {
            return;
          }
          RequestId[] pair = known.get(cmd.a() % known.size());
          CancelResult rc = r.cancel(pair[0], "cancelled " + cmd.b());
          CancelResult mc = m.cancel(pair[1], "cancelled " + cmd.b());
          assertThat(rc.status() + " " + rc.request().map(x -> render(x, this::mapped)) + " "
              + rc.queuedJobsCancelled() + " " + rc.leasedJobsFlagged()).as(at(cmd))
              .isEqualTo(mc.status() + " " + mc.request().map(x -> render(x, RequestId::toString)) + " "
                  + mc.queuedJobsCancelled() + " " + mc.leasedJobsFlagged());
        }
        case PURGE -> {
          if (known.isEmpty()) {
            return;
          }
          RequestId[] pair = known.get(cmd.a() % known.size());
          String tag = model.request(pair[1]).orElseThrow().tag().orElse("never" + cmd.b());
          PurgeResult rp = r.purge(tag);
          PurgeResult mp = m.purge(tag);
          assertThat(rp.status() + " " + rp.request().map(x -> render(x, this::mapped)) + " " + rp.jobsRemoved()
              + " " + rp.resultsRemoved()).as(at(cmd)).isEqualTo(mp.status() + " "
              + mp.request().map(x -> render(x, RequestId::toString)) + " " + mp.jobsRemoved() + " "
              + mp.resultsRemoved());
          if (mp.status() == PurgeResult.Status.PURGED) {
            forget(pair);
          }
        }
        case ADVANCE -> clock.advance(Duration.ofSeconds(20L * (cmd.a() % 5))
            .plusNanos(nanosecondClock ? 2L * (cmd.b() * 1_009L + cmd.c()) + 1 : 0));
        case COLLECTOR_HEARTBEAT -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          assertThat(r.collectorHeartbeat(collector)).as(at(cmd)).isEqualTo(m.collectorHeartbeat(collector));
        }
        case TOGGLE_ACTIVE -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          boolean active = real.collector(collector).map(Collector::active).orElse(false);
          assertThat(active ? r.deactivate(collector) : r.activate(collector)).as(at(cmd))
              .isEqualTo(active ? m.deactivate(collector) : m.activate(collector));
        }
        case REREGISTER -> {
          // A host registering again at start with the inventory it detects: its own, fewer devices, more, the
          // same regrouped, none; now and then under another tag (refused unless it retired).
          int i = cmd.a() % COLLECTORS.length;
          String tag = cmd.c() % 7 == 0 ? "z" : TAGS[i];
          Devices devices = switch (cmd.b() % 6) {
            case 0 -> DEVICES[i];
            case 1 -> Devices.count(2);
            case 2 -> Devices.grouped(List.of(List.of(0, 1), List.of(2, 3), List.of(4, 5)));
            case 3 -> Devices.grouped(List.of(List.of(1, 2), List.of(3)));
            case 4 -> Devices.grouped(List.of(List.of(0), List.of(1), List.of(2), List.of(3)));
            default -> Devices.none();
          };
          assertThat(real.registerCollector(COLLECTORS[i], tag, true, devices)).as(at(cmd))
              .isEqualTo(model.registerCollector(COLLECTORS[i], tag, true, devices));
        }
        case RETIRE -> {
          String collector = COLLECTORS[cmd.a() % COLLECTORS.length];
          assertThat(r.retireCollector(collector)).as(at(cmd)).isEqualTo(m.retireCollector(collector));
        }
        case RETRY -> retry(cmd, r, m);
        case PAUSE -> pause(cmd, r, m);
      }
    }

    /**
     * An operator's retry of a job of a known request: mostly a failed or cancelled one, sometimes any (which is
     * refused). A refusal changes nothing, and {@code CAP_REACHED} only when the cap is full; a retried job is
     * queued with no lease, and its request in progress within the cap. That it never runs twice at once is the
     * live-leases-per-job invariant of {@link #checkState}: the leases its collectors still believe they hold
     * (of its earlier attempts) no longer fence it.
     */
    private void retry(Command cmd, JobQueue r, JobQueue m) {
      if (!operatorControls) {
        return;
      }
      // Chosen from the model's jobs (no round trip), then found in the store by its key.
      List<Job> all = new ArrayList<>();
      List<Job> retryable = new ArrayList<>();
      List<Job> reopening = new ArrayList<>();
      Map<RequestId, RequestId> toReal = new HashMap<>();
      for (RequestId[] pair : known) {
        toReal.put(pair[1], pair[0]);
        for (Job job : model.jobs(pair[1])) {
          all.add(job);
          if (job.state() == JobState.FAILED || job.state() == JobState.CANCELLED) {
            retryable.add(job);
            if (model.request(pair[1]).orElseThrow().state() == RequestState.COMPLETED) {
              reopening.add(job);
            }
          }
        }
      }
      // Mostly a retryable job, half of the time one whose completed request it reopens (or finds the cap full).
      List<Job> from = retryable.isEmpty() || cmd.b() % 5 == 0 ? all
          : reopening.isEmpty() || cmd.c() % 2 == 0 ? retryable : reopening;
      if (from.isEmpty()) {
        return;
      }
      Job modelJob = from.get(cmd.a() % from.size());
      String key = key(modelJob, RequestId::toString);
      Job realJob = real.jobs(Objects.requireNonNull(toReal.get(modelJob.requestId()))).stream()
          .filter(j -> key(j, this::mapped).equals(key)).findFirst().orElseThrow();
      RetryResult rr = r.retryJob(realJob.id());
      RetryResult mr = m.retryJob(modelJob.id());
      assertThat(render(rr, this::mapped)).as(at(cmd)).isEqualTo(render(mr, RequestId::toString));
      if (rr.status() != RetryResult.Status.RETRIED) {
        // That a refusal changed nothing is the comparison of the whole state with the model after this step.
        if (rr.status() == RetryResult.Status.CAP_REACHED) {
          assertThat(real.inProgressRequests().stream().filter(x -> x.kind().isCapped()).count())
              .as("requests in progress when %s was refused for the cap", key).isGreaterThanOrEqualTo(
                  scenario.maxInProgress());
        }
        return;
      }
      Job queued = real.job(realJob.id()).orElseThrow();
      assertThat(queued.state()).as("%s retried at %s", key, at(cmd)).isEqualTo(JobState.QUEUED);
      assertThat(queued.lease()).as("lease of %s retried at %s", key, at(cmd)).isEmpty();
      Request request = real.request(realJob.requestId()).orElseThrow();
      assertThat(request.state()).as("request of %s retried at %s", key, at(cmd)).isEqualTo(RequestState.IN_PROGRESS);
      // Operator retries are the one way out of a terminal state: the job (and a reopened request) may change.
      terminal.remove("job " + key);
      terminal.remove("request " + mapped(request.id()));
    }

    /**
     * Pauses or resumes pool x or y (now and then setting the state it has). A paused pool's queued jobs all
     * wait with {@code POOL_PAUSED}, a resumed pool's with another reason; the claims of a paused pool's
     * collectors lease nothing (checked at each claim), and after a resume claim as the model does.
     */
    private void pause(Command cmd, JobQueue r, JobQueue m) {
      if (!operatorControls) {
        return;
      }
      String pool = cmd.a() % 2 == 0 ? "x" : "y";
      boolean pause = cmd.b() % 4 == 0 ? model.pausedPools().contains(pool) : !model.pausedPools().contains(pool);
      assertThat(r.setPoolPaused(pool, pause)).as(at(cmd)).isEqualTo(m.setPoolPaused(pool, pause));
      // The paused pools themselves are part of the state compared with the model after this step.
      for (JobWait wait : real.pool(pool, LEASE).waits()) {
        assertThat(wait.reason().kind() == WaitReason.Kind.POOL_PAUSED).as("wait of %s in pool %s after %s",
            key(wait.job(), this::mapped), pool, at(cmd)).isEqualTo(pause);
      }
    }

    /** Stops tracking a purged request: its state, its jobs and their terminal states are gone on purpose. */
    private void forget(RequestId[] pair) {
      known.remove(pair);
      String jobs = "job " + pair[1] + " ";
      terminal.keySet().removeIf(k -> k.equals("request " + pair[1]) || k.startsWith(jobs));
      lastJobs.keySet().removeIf(k -> k.startsWith(jobs));
    }

    /** The tags of the known requests, newest last. */
    private List<String> tags() {
      List<String> tags = new ArrayList<>();
      for (RequestId[] pair : known) {
        model.request(pair[1]).orElseThrow().tag().ifPresent(tags::add);
      }
      return tags;
    }

    /** A parent SHA: mostly one of the three newest tags, sometimes none or an unknown one. */
    private @Nullable String parent(int c) {
      List<String> tags = tags();
      int kind = c % 6;
      if (kind == 0 || (kind > 1 && tags.isEmpty())) {
        return null;
      }
      if (kind == 1) {
        return "unknown" + c % 3;
      }
      return tags.get(tags.size() - 1 - c % Math.min(3, tags.size()));
    }

    /** A SHA: mostly fresh, sometimes one that exists (a duplicate). */
    private String sha(int b) {
      List<String> tags = tags();
      return b % 5 == 0 && !tags.isEmpty() ? tags.get(b / 5 % tags.size()) : "s" + step;
    }

    private void submit(Command cmd, JobQueue r, JobQueue m) {
      String sha = sha(cmd.b());
      String parent = parent(cmd.c());
      long pr = 1L + (cmd.b() / 8) % 4;
      List<String> groups = switch ((cmd.a() / 4) % 4) {
        case 0, 1 -> List.of();
        case 2 -> List.of("g1");
        default -> List.of("g2", "g3");
      };
      NewRequest request;
      try {
        request = switch (cmd.a() % 4) {
          case 0 -> cmd.c() % 2 == 0 ? NewRequest.master(sha, parent).withPr(pr).withBenchmarkGroups(groups)
              : NewRequest.master(sha, parent).withBenchmarkGroups(groups);
          case 1 -> NewRequest.tryAwaitingArtifacts(pr).withBenchmarkGroups(groups);
          case 2 -> NewRequest.tryWithArtifacts(pr, sha, parent == null ? "unknown" : parent)
              .withBenchmarkGroups(groups);
          default -> NewRequest.release("v" + cmd.b() % 3);
        };
      } catch (InvalidQueueInputException e) {
        return;
      }
      SubmitResult rs = r.submit(request);
      SubmitResult ms = m.submit(request);
      assertThat(rs.status()).as(at(cmd)).isEqualTo(ms.status());
      if (rs.created()) {
        toModel.put(rs.request().id(), ms.request().id());
        known.add(new RequestId[] {rs.request().id(), ms.request().id()});
      }
      assertThat(render(rs.request(), this::mapped)).as(at(cmd)).isEqualTo(render(ms.request(), RequestId::toString));
    }

    /**
     * A CI run of one of two repositories, run ids 1 to 4, attempts 1 and 2, in no group or one of two groups, so
     * that submissions create, attach (the same key), supersede older open runs of their group, or are created
     * superseded; its jobs run on tags x and y, one sometimes needing a GPU, with args.
     */
    private void submitCiRun(Command cmd, JobQueue r, JobQueue m) {
      CiRun run = CiRun.of(cmd.a() % 5 == 0 ? "acme/b" : "acme/a", 1 + cmd.b() % 4, 1 + cmd.c() % 2, "c" + cmd.b() % 3,
          "pull_request");
      if (cmd.a() % 3 != 0) {
        run = run.withConcurrencyGroup("g" + cmd.a() % 2);
      }
      List<JobSpec> jobs = new ArrayList<>();
      jobs.add(JobSpec.required("ci1", "x").withArgs("run " + cmd.b()));
      if (cmd.c() % 2 == 0) {
        jobs.add(JobSpec.required("ci2", "y"));
      }
      if (cmd.a() % 4 == 1) {
        jobs.add(JobSpec.optionalJob("ci3", "x").withGpus(1, Duration.ofSeconds(20)));
      }
      SubmitResult rs = r.submitCiRun(run, jobs);
      SubmitResult ms = m.submitCiRun(run, jobs);
      assertThat(rs.status()).as(at(cmd)).isEqualTo(ms.status());
      if (rs.status() == SubmitResult.Status.CREATED || rs.status() == SubmitResult.Status.SUPERSEDED) {
        toModel.put(rs.request().id(), ms.request().id());
        known.add(new RequestId[] {rs.request().id(), ms.request().id()});
      }
      assertThat(render(rs.request(), this::mapped)).as(at(cmd)).isEqualTo(render(ms.request(), RequestId::toString));
      assertThat(rs.superseded().stream().map(x -> render(x, this::mapped)).toList()).as(at(cmd))
          .isEqualTo(ms.superseded().stream().map(x -> render(x, RequestId::toString)).toList());
      assertThat(real.ciRun(run.key()).map(x -> render(x, this::mapped))).as(at(cmd))
          .isEqualTo(model.ciRun(run.key()).map(x -> render(x, RequestId::toString)));
    }

    private void update(Command cmd, JobQueue r, JobQueue m) {
      if (held.isEmpty()) {
        return;
      }
      int index = cmd.a() % held.size();
      Lease[] lease = held.get(index);
      LeaseResult rr;
      LeaseResult mr;
      switch (cmd.op()) {
        case HEARTBEAT -> {
          rr = r.heartbeat(lease[0]);
          mr = m.heartbeat(lease[1]);
        }
        case COMPLETE -> {
          if (cmd.b() % 2 == 1) {
            ResultPayload result = ResultPayload.ofText("result " + cmd.c());
            rr = r.complete(lease[0], result);
            mr = m.complete(lease[1], result);
          } else {
            rr = r.complete(lease[0]);
            mr = m.complete(lease[1]);
          }
        }
        case FAIL -> {
          Failure failure = cmd.b() % 2 == 0 ? Failure.transientFailure("t" + cmd.c()) : Failure.permanent("p" + cmd.c());
          rr = r.fail(lease[0], failure);
          mr = m.fail(lease[1], failure);
        }
        default -> {
          rr = r.release(lease[0]);
          mr = m.release(lease[1]);
        }
      }
      assertThat(render(rr, this::mapped)).as(at(cmd)).isEqualTo(render(mr, RequestId::toString));
      if (cmd.op() == Op.COMPLETE && rr.status() == LeaseStatus.OK) {
        successes.merge(key(rr.job().orElseThrow(), this::mapped), 1, Integer::sum);
      }
      if (cmd.op() != Op.HEARTBEAT || rr.status() != LeaseStatus.OK) {
        retired.add(held.remove(index));
      }
    }

    /**
     * Completes up to three held leases and, sometimes, a retired one, each job once, with one call on the
     * store under test; the model completes them one by one, so every item must get what completing it alone
     * gives.
     */
    private void completeAll(Command cmd, JobQueue r, JobQueue m) {
      List<Integer> picked = new ArrayList<>();
      List<Lease> realBatch = new ArrayList<>();
      List<Lease> modelBatch = new ArrayList<>();
      Set<JobId> jobs = new HashSet<>();
      int n = held.isEmpty() ? 0 : Math.min(held.size(), 1 + cmd.c() % 3);
      for (int i = 0; i < n; i++) {
        int index = (cmd.a() + i) % held.size();
        Lease[] lease = held.get(index);
        if (jobs.add(lease[0].jobId())) {
          picked.add(index);
          realBatch.add(lease[0]);
          modelBatch.add(lease[1]);
        }
      }
      if (cmd.b() % 2 == 1 && !retired.isEmpty()) {
        Lease[] old = retired.get(cmd.b() % retired.size());
        if (jobs.add(old[0].jobId())) {
          int at = cmd.b() % (realBatch.size() + 1);
          realBatch.add(at, old[0]);
          modelBatch.add(at, old[1]);
        }
      }
      if (realBatch.isEmpty()) {
        return;
      }
      boolean withResults = cmd.c() % 2 == 1;
      List<ResultPayload> payloads = new ArrayList<>();
      for (int i = 0; i < realBatch.size(); i++) {
        payloads.add(ResultPayload.ofText("batch " + cmd.a() + "/" + i));
      }
      List<LeaseResult> rr = withResults ? r.completeAll(realBatch, payloads) : r.completeAll(realBatch);
      List<LeaseResult> mr = new ArrayList<>();
      for (int i = 0; i < modelBatch.size(); i++) {
        mr.add(withResults ? m.complete(modelBatch.get(i), payloads.get(i)) : m.complete(modelBatch.get(i)));
      }
      assertThat(rr.stream().map(x -> render(x, this::mapped)).toList()).as(at(cmd))
          .isEqualTo(mr.stream().map(x -> render(x, RequestId::toString)).toList());
      for (LeaseResult result : rr) {
        if (result.status() == LeaseStatus.OK) {
          successes.merge(key(result.job().orElseThrow(), this::mapped), 1, Integer::sum);
        }
      }
      picked.sort(Comparator.reverseOrder());
      for (int index : picked) {
        retired.add(held.remove(index));
      }
    }

    private void stale(Command cmd) {
      Lease lease;
      if (!retired.isEmpty() && (held.isEmpty() || cmd.b() % 3 != 0)) {
        lease = retired.get(cmd.a() % retired.size())[0];
      } else if (!held.isEmpty()) {
        Lease live = held.get(cmd.a() % held.size())[0];
        lease = cmd.c() % 2 == 0
            ? Lease.builder().from(live).token(live.token() + 1_000_003).devices(List.of()).build()
            : Lease.builder().from(live).attempt(live.attempt() + 1).devices(List.of()).build();
      } else {
        return;
      }
      Map<String, String> before = snapshot();
      LeaseResult result = switch (cmd.b() % 5) {
        case 0 -> real.heartbeat(LeaseRef.of(lease), LEASE);
        case 1 -> real.complete(LeaseRef.of(lease));
        case 2 -> real.fail(LeaseRef.of(lease), Failure.permanent("stale"), 2);
        case 3 -> real.complete(LeaseRef.of(lease), ResultPayload.ofText("zombie " + cmd.c()));
        default -> real.release(LeaseRef.of(lease));
      };
      // A lease on a job whose request was purged finds no job.
      assertThat(result.status()).as(at(cmd) + " with " + lease).isEqualTo(real.job(lease.jobId()).isPresent()
          ? LeaseStatus.STALE_LEASE : LeaseStatus.NOT_FOUND);
      assertThat(snapshot()).as(at(cmd) + ": a stale lease changed the store").isEqualTo(before);
    }

    // ------------------------------------------------------------------------------------- state and invariants

    private void checkState(Command cmd) {
      String where = at(cmd) + " of " + scenario;
      Map<String, String> realState = snapshot();
      Map<String, String> modelState = modelSnapshot();
      assertThat(realState).as("state after " + where).isEqualTo(modelState);
      assertThat(real.openRequests().stream().map(x -> render(x, this::mapped)).toList()).as("open after " + where)
          .isEqualTo(model.openRequests().stream().map(x -> render(x, RequestId::toString)).toList());

      assertThat(history(real, this::mapped)).as("history after " + where)
          .isEqualTo(history(model, RequestId::toString));

      List<Request> open = real.openRequests();
      long running = open.stream().filter(x -> x.state() == RequestState.IN_PROGRESS).count();
      long capped = open.stream().filter(x -> x.state() == RequestState.IN_PROGRESS && x.kind().isCapped()).count();
      assertThat(capped).as("benchmark requests in progress after " + where)
          .isLessThanOrEqualTo(scenario.maxInProgress());
      assertThat(real.inProgressRequests()).as("in progress after " + where).hasSize((int) running);

      Instant now = clock.instant();
      Map<String, Integer> liveHolders = new HashMap<>();
      List<Lease[]> believed = new ArrayList<>(held);
      believed.addAll(abandoned);
      for (RequestId[] pair : known) {
        for (Job job : real.jobs(pair[0])) {
          String key = key(job, this::mapped);
          assertThat(job.crashRescues()).as("crash rescues of %s after %s", key, where)
              .isLessThanOrEqualTo(scenario.crashBudget());
          assertThat(job.transientRetries()).as("transient retries of %s after %s", key, where)
              .isLessThanOrEqualTo(scenario.transientBudget());
          int ok = successes.getOrDefault(key, 0);
          assertThat(ok).as("successful completions of %s after %s", key, where).isLessThanOrEqualTo(1);
          if (job.state() == JobState.SUCCEEDED) {
            assertThat(ok).as("a succeeded job was completed once: %s after %s", key, where).isEqualTo(1);
          }
        }
      }
      for (Lease[] lease : believed) {
        Optional<Job> found = real.job(lease[0].jobId());
        if (found.isEmpty()) {
          continue; // its request was purged, which needs no lease to be live
        }
        Optional<Lease> current = found.get().lease();
        if (current.isPresent() && current.get().fences(lease[0].jobId(), lease[0].attempt(), lease[0].token())
            && current.get().isLiveAt(now)) {
          liveHolders.merge(lease[0].jobId().toString(), 1, Integer::sum);
        }
      }
      assertThat(liveHolders.values()).as("live leases per job after " + where).allMatch(n -> n <= 1);

      Map<String, String> devicesHeld = new HashMap<>();
      for (RequestId[] pair : known) {
        for (Job job : real.jobs(pair[0])) {
          if (job.state() != JobState.LEASED) {
            continue;
          }
          Lease lease = job.lease().orElseThrow();
          String key = key(job, this::mapped);
          assertThat(lease.devices()).as("devices of %s after %s", key, where).hasSize(job.spec().gpus());
          if (lease.isLiveAt(now)) {
            // A live lease keeps its holder listed, and its devices in the inventory taken (a pending inventory
            // that removes one is not taken while it holds it).
            assertThat(real.collector(lease.collector()).orElseThrow().devices().indices())
                .as("devices of %s are its holder's, after %s", key, where).containsAll(lease.devices());
          }
          for (int d : lease.devices()) {
            String previous = devicesHeld.put(lease.collector() + "/" + d, key);
            assertThat(previous).as("device %s of %s held by %s and %s after %s", d, lease.collector(), previous,
                key, where).isNull();
          }
        }
      }

      Map<String, String> jobs = new LinkedHashMap<>();
      realState.forEach((k, v) -> {
        if (k.startsWith("job ")) {
          jobs.put(k, v);
        }
      });
      for (String k : lastJobs.keySet()) {
        assertThat(jobs).as("job %s lost after %s", k, where).containsKey(k);
      }
      for (Map.Entry<String, String> e : terminal.entrySet()) {
        assertThat(realState.get(e.getKey())).as("terminal %s changed after %s", e.getKey(), where)
            .isEqualTo(e.getValue());
      }
      for (RequestId[] pair : known) {
        Request request = real.request(pair[0]).orElseThrow();
        if (request.state().isTerminal()) {
          String k = "request " + mapped(request.id());
          terminal.putIfAbsent(k, realState.get(k));
        }
        for (Job job : real.jobs(pair[0])) {
          if (job.state().isTerminal()) {
            String k = "job " + key(job, this::mapped);
            terminal.putIfAbsent(k, realState.get(k));
          }
        }
      }
      lastJobs = jobs;

      checkOrder(open, where);
    }

    /**
     * Both stores know the same parents; the order is independent of input order and stable when an
     * in-progress request completes (its tag then known from outside the open requests).
     */
    private void checkOrder(List<Request> open, String where) {
      Set<String> outside = QueueOrder.parentTagsOutside(open);
      Set<String> known = real.knownTags(outside);
      assertThat(known).as("known parent tags after " + where).isEqualTo(model.knownTags(outside));
      QueueOrder order = QueueOrder.of(open, known);
      List<Request> reversed = new ArrayList<>(open);
      Collections.reverse(reversed);
      assertThat(QueueOrder.of(reversed, known).placed()).as("order of reversed input after " + where)
          .isEqualTo(order.placed());
      for (Request r : open) {
        if (r.state() == RequestState.IN_PROGRESS) {
          List<Request> without = new ArrayList<>(open);
          without.remove(r);
          Set<String> knownWithout = new HashSet<>(known);
          r.tag().ifPresent(knownWithout::add);
          assertThat(QueueOrder.of(without, knownWithout).ready())
              .as("ready order once %s completes, after %s", r.label(), where).isEqualTo(order.ready());
        }
      }
    }

    /** The whole history, read in pages of two (so ties in completion time straddle pages), rendered. */
    private List<String> history(QueueStore store, Function<RequestId, String> ids) {
      List<String> out = new ArrayList<>();
      HistoryCursor after = null;
      do {
        HistoryPage page = store.history(2, after);
        for (HistoryEntry e : page.entries()) {
          out.add(render(e.request(), ids) + " errors " + e.failedJobs().stream().map(j -> key(j, ids)).toList());
        }
        after = page.next().orElse(null);
      } while (after != null);
      return out;
    }

    private Map<String, String> snapshot() {
      return snapshot(real, this::mapped, 0);
    }

    private Map<String, String> modelSnapshot() {
      return snapshot(model, RequestId::toString, 1);
    }

    private Map<String, String> snapshot(QueueStore store, Function<RequestId, String> ids, int side) {
      Map<String, String> out = new LinkedHashMap<>();
      for (RequestId[] pair : known) {
        Request request = store.request(pair[side]).orElseThrow();
        out.put("request " + ids.apply(request.id()), render(request, ids));
        for (Job job : store.jobs(pair[side])) {
          out.put("job " + key(job, ids), render(job, ids));
          store.result(job.id()).ifPresent(result -> out.put("result " + key(job, ids), "attempt "
              + result.attempt() + " by " + result.collector() + " at " + result.storedAt() + ": "
              + result.payload().text()));
        }
        out.put("results of request " + ids.apply(request.id()), store.results(pair[side]).stream()
            .map(result -> key(store.job(result.jobId()).orElseThrow(), ids) + "=" + result.payload().text())
            .toList().toString());
      }
      for (Collector c : store.collectors()) {
        out.put("collector " + c.name(), c.toString());
      }
      out.put("paused pools", new TreeSet<>(store.pausedPools()).toString());
      return out;
    }

    private String mapped(RequestId real) {
      RequestId m = toModel.get(real);
      return m == null ? "unmapped " + real : m.toString();
    }
  }

  // ---------------------------------------------------------------------------------------------- rendering

  /** The natural key of a job: its request (as the model numbers it), group and tag. */
  static String key(Job job, Function<RequestId, String> ids) {
    return ids.apply(job.requestId()) + " " + job.spec().benchmarkGroup() + "@" + job.spec().collectorTag();
  }

  static String render(Request r, Function<RequestId, String> ids) {
    return ids.apply(r.id()) + " " + r.kind().documentName() + " " + r.state().documentName() + " tag=" + r.tag()
        + " parent=" + r.parentSha() + " pr=" + r.pr() + " groups=" + r.benchmarkGroups() + " created="
        + r.createdAt() + " started=" + r.startedAt() + " finished=" + r.finishedAt() + " outcome=" + r.outcome()
        + " parentRequest=" + r.parentRequest().map(ids) + " cancel=" + r.cancelReason() + " ciRun=" + r.ciRun()
        + " supersededBy=" + r.supersededBy().map(ids);
  }

  static String render(Job j, Function<RequestId, String> ids) {
    return key(j, ids) + " optional=" + j.spec().optional() + " gpus=" + j.spec().gpus() + " estimate="
        + j.spec().estimate() + " " + j.state().documentName() + " attempt="
        + j.attempt() + " rescues=" + j.crashRescues() + " retries=" + j.transientRetries() + " lease="
        + j.lease().map(QueueModelCheck::render) + " affinity=" + j.affinity() + " flagged=" + j.cancelRequested()
        + " failure=" + j.failure() + " lastError=" + j.lastError() + " created=" + j.createdAt() + " finished="
        + j.finishedAt() + " args=" + j.spec().args();
  }

  /** A lease without its token, which each store draws on its own. */
  static String render(Lease l) {
    return "attempt " + l.attempt() + " until " + l.expiresAt() + " by " + l.collector() + " on " + l.devices();
  }

  static String render(RetryResult result, Function<RequestId, String> ids) {
    return result.status() + " " + result.job().map(j -> render(j, ids)) + " " + result.request().map(
        r -> render(r, ids)) + " reopened=" + result.reopened();
  }

  static String render(AttachResult result) {
    return result.status() + " " + result.request().map(Request::state);
  }

  static String render(LeaseResult result, Function<RequestId, String> ids) {
    return result.status() + " " + result.job().map(j -> render(j, ids));
  }

  static String render(ClaimResult result, Function<RequestId, String> ids) {
    return result.status() + " " + result.claims().stream().map((Claim c) -> render(c.job(), ids) + " / "
        + render(c.lease())).collect(Collectors.joining("; "));
  }

  static String render(TickResult tick, Function<RequestId, String> ids) {
    StringBuilder sb = new StringBuilder();
    sb.append("rescued ").append(tick.expired().rescued().stream().map(j -> key(j, ids)).toList());
    sb.append(" failed ").append(tick.expired().failed().stream().map(j -> render(j, ids)).toList());
    sb.append(" cancelled ").append(tick.expired().cancelled().stream().map(j -> key(j, ids)).toList());
    sb.append(" completed ").append(tick.completed().stream().map(r -> render(r, ids)).toList());
    sb.append(" events ").append(tick.events().stream().map(e -> render(e, ids)).toList());
    for (StartResult s : tick.started()) {
      sb.append(" started ").append(render(s, ids));
    }
    return sb.toString();
  }

  static String render(StartResult s, Function<RequestId, String> ids) {
    return s.status() + " " + s.request().map(r -> render(r, ids)) + " jobs "
        + s.jobs().stream().map(j -> render(j, ids)).toList() + " backfill " + render(s.backfill(), ids)
        + " inProgress " + s.inProgress();
  }

  static String render(Backfill b, Function<RequestId, String> ids) {
    return b.status() + " " + b.parent().map(ids) + " " + b.created().stream().map(j -> render(j, ids)).toList()
        + " existing " + b.existing();
  }

  static String render(ComparisonEvent e, Function<RequestId, String> ids) {
    return ids.apply(e.request()) + " " + e.kind() + " " + e.tag() + " " + e.parentSha() + " " + e.pr() + " "
        + e.outcome() + " " + e.completedAt();
  }

}

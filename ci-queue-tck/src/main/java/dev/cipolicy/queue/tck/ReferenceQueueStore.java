package dev.cipolicy.queue.tck;

import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.placement.ShareLedger;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorRegistration;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.RetireResult;
import dev.cipolicy.queue.spi.RetryResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The reference model of the {@link QueueStore} contract: the same rules as the real stores, written as
 * plainly as possible (lists scanned in full, no indexes, no counters), for the model-based test to compare
 * a store against after every step. Like every store it measures time on its own clock, given when it is
 * built, and keeps instants to the microsecond: each method reads its {@code now} once from the clock,
 * truncated with {@link QueueStore#truncate} (as are the expiries it derives). Synchronized, but meant for
 * one thread.
 */
public final class ReferenceQueueStore implements QueueStore {
  /** Requests by id; ids are 1, 2, ... in creation order, and a purged request's id is not reused. */
  private final TreeMap<Long, Request> requests = new TreeMap<>();
  /** Jobs by id, like the requests. */
  private final TreeMap<Long, Job> jobs = new TreeMap<>();
  private long requestIds;
  private long jobIds;
  private final TreeMap<String, Collector> collectors = new TreeMap<>();
  /** The estimated end of each lease on devices, by job id, set when it was claimed. */
  private final java.util.HashMap<Long, Instant> estimatedEnds = new java.util.HashMap<>();
  /** Results by job id. */
  private final TreeMap<Long, JobResult> results = new TreeMap<>();
  /** Each attempt's kept log, by "job id/attempt". */
  private final TreeMap<String, LogWindow> logs = new TreeMap<>();
  /** The attempts of each job, oldest first. */
  private final TreeMap<Long, List<JobAttempt>> attempts = new TreeMap<>();
  /** The instant the running operation read last ({@link #now()}): when a job transition it writes happens. */
  private Instant lastNow = Instant.EPOCH;
  private final InstantSource clock;
  private long tokens;
  private FleetShares shares = FleetShares.none();
  /** The reservation each pool kept from its last claim of a host, by tag. */
  private final TreeMap<String, DevicePlacement.KeptReservation> kept = new TreeMap<>();
  /** The pools an operator paused ({@link #setPoolPaused}). */
  private final TreeSet<String> paused = new TreeSet<>();

  /**
   * Creates an empty model on a clock.
   *
   * @param clock the model's clock
   */
  public ReferenceQueueStore(InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public synchronized Instant now() {
    lastNow = QueueStore.truncate(clock.instant());
    return lastNow;
  }

  @Override
  public synchronized SubmitResult submit(NewRequest request) {
    Instant now = now();
    if (request.ciRun().isPresent()) {
      return submitCiRun(request, request.ciRun().get(), now);
    }
    for (Request r : requests.values()) {
      if (request.tag().isPresent() && r.tag().equals(request.tag())) {
        return new SubmitResult(SubmitResult.Status.DUPLICATE_TAG, r);
      }
    }
    for (Request r : requests.values()) {
      if (request.pr().isPresent() && r.state().isOpen() && r.kind() == request.kind()
          && r.pr().equals(request.pr())) {
        return new SubmitResult(SubmitResult.Status.DUPLICATE_OPEN_PR, r);
      }
    }
    Request created = Request.created(RequestId.of(++requestIds), request, now);
    requests.put(created.id().value(), created);
    return new SubmitResult(SubmitResult.Status.CREATED, created);
  }

  /** A CI run: attach by key, else created superseded by the newest open newer run, else created with its jobs. */
  private SubmitResult submitCiRun(NewRequest request, CiRun run, Instant now) {
    Optional<Request> existing = ciRun(run.key());
    if (existing.isPresent()) {
      return new SubmitResult(SubmitResult.Status.ATTACHED, existing.get());
    }
    Request newest = null;
    for (Request r : requests.values()) {
      if (r.state().isOpen() && r.ciRun().isPresent() && r.ciRun().get().supersedes(run)
          && (newest == null || newest.ciRun().get().key().compareTo(r.ciRun().get().key()) < 0)) {
        newest = r;
      }
    }
    Request created = Request.created(RequestId.of(++requestIds), request, now);
    if (newest != null) {
      return new SubmitResult(SubmitResult.Status.SUPERSEDED, put(created.superseded(newest, now)));
    }
    put(created);
    for (JobSpec spec : request.jobs()) {
      createJob(created.id(), spec, now);
    }
    List<Request> superseded = new ArrayList<>();
    for (Request r : List.copyOf(requests.values())) {
      if (r.state().isOpen() && r.ciRun().isPresent() && run.supersedes(r.ciRun().get())) {
        superseded.add(cancelOpen(r, r.superseded(created, now), now).request().orElseThrow());
      }
    }
    return new SubmitResult(SubmitResult.Status.CREATED, created, superseded);
  }

  @Override
  public synchronized Optional<Request> ciRun(CiRunKey key) {
    Objects.requireNonNull(key, "key");
    return requests.values().stream().filter(r -> r.ciRun().map(c -> c.key().equals(key)).orElse(false))
        .findFirst();
  }

  @Override
  public synchronized AttachResult attachArtifacts(RequestId id, String sha, String parentSha) {
    QueueNames.check(sha, "try SHA");
    QueueNames.check(parentSha, "try parent SHA");
    Optional<Request> r = request(id);
    if (r.isEmpty()) {
      return new AttachResult(AttachResult.Status.NOT_FOUND, r);
    }
    if (r.get().state() != RequestState.WAITING_FOR_ARTIFACTS) {
      return new AttachResult(AttachResult.Status.NOT_WAITING, r);
    }
    if (requestByTag(sha).isPresent()) {
      return new AttachResult(AttachResult.Status.DUPLICATE_TAG, r);
    }
    return new AttachResult(AttachResult.Status.ATTACHED, Optional.of(put(r.get().withArtifacts(sha, parentSha))));
  }

  @Override
  public synchronized Optional<Request> request(RequestId id) {
    return Optional.ofNullable(requests.get(id.value()));
  }

  @Override
  public synchronized Optional<Request> requestByTag(String tag) {
    QueueNames.check(tag, "tag");
    return requests.values().stream().filter(r -> r.tag().equals(Optional.of(tag))).findFirst();
  }

  @Override
  public synchronized List<Request> openRequests() {
    return requests.values().stream().filter(r -> r.state().isOpen()).toList();
  }

  @Override
  public synchronized List<Request> inProgressRequests() {
    return requests.values().stream().filter(r -> r.state() == RequestState.IN_PROGRESS).toList();
  }

  @Override
  public synchronized StartResult startRequest(StartCommand command) {
    int running = (int) inProgressRequests().stream().filter(x -> x.kind().isCapped()).count();
    Optional<Request> r = request(command.requestId());
    if (r.isEmpty()) {
      return StartResult.unchanged(StartResult.Status.NOT_FOUND, r, running);
    }
    if (r.get().state() != RequestState.ARTIFACTS_READY) {
      return StartResult.unchanged(StartResult.Status.NOT_READY, r, running);
    }
    if (running >= command.maxInProgress()) {
      return StartResult.unchanged(StartResult.Status.CAP_REACHED, r, running);
    }
    Instant now = now();
    List<Job> created = new ArrayList<>();
    for (JobSpec spec : command.jobs()) {
      createJob(r.get().id(), spec, now).ifPresent(created::add);
    }
    Backfill backfill = backfill(r.get(), command, now);
    Request started = put(r.get().started(now,
        backfill.status() == Backfill.Status.ENQUEUED ? backfill.parent().orElseThrow() : null));
    return StartResult.builder().status(StartResult.Status.STARTED).request(started).jobs(created)
        .backfill(backfill).inProgress(running + 1).build();
  }

  private Backfill backfill(Request r, StartCommand command, Instant now) {
    if (!command.backfillParent()) {
      return Backfill.none(Backfill.Status.NOT_REQUESTED, Optional.empty());
    }
    if (r.parentSha().isEmpty()) {
      return Backfill.none(Backfill.Status.NO_PARENT, Optional.empty());
    }
    Optional<Request> parent = requestByTag(r.parentSha().get());
    if (parent.isEmpty()) {
      return Backfill.none(Backfill.Status.PARENT_UNKNOWN, Optional.empty());
    }
    Optional<RequestId> parentId = Optional.of(parent.get().id());
    RequestState state = parent.get().state();
    if (state == RequestState.CANCELLED) {
      return Backfill.none(Backfill.Status.PARENT_CANCELLED, parentId);
    }
    if (state != RequestState.IN_PROGRESS && state != RequestState.COMPLETED) {
      return Backfill.none(Backfill.Status.PARENT_NOT_STARTED, parentId);
    }
    List<Job> created = new ArrayList<>();
    int existing = 0;
    for (JobSpec spec : command.jobs()) {
      Optional<Job> job = createJob(parent.get().id(), spec, now);
      if (job.isPresent()) {
        created.add(job.get());
      } else {
        existing++;
      }
    }
    return Backfill.builder().status(Backfill.Status.ENQUEUED).parent(parentId).created(created).existing(existing)
        .build();
  }

  private Optional<Job> createJob(RequestId request, JobSpec spec, Instant now) {
    for (Job j : jobs.values()) {
      if (j.requestId().equals(request) && j.spec().sameJobAs(spec)) {
        return Optional.empty();
      }
    }
    Job job = Job.created(JobId.of(++jobIds), request, spec, now);
    jobs.put(job.id().value(), job);
    return Optional.of(job);
  }

  @Override
  public synchronized CompletionResult completeIfDone(RequestId id) {
    Instant now = now();
    Optional<Request> r = request(id);
    if (r.isEmpty()) {
      return new CompletionResult(CompletionResult.Status.NOT_FOUND, r, 0);
    }
    if (r.get().state() != RequestState.IN_PROGRESS) {
      return new CompletionResult(CompletionResult.Status.NOT_IN_PROGRESS, r, 0);
    }
    int pending = 0;
    for (Job j : jobs.values()) {
      boolean ours = j.requestId().equals(id) || r.get().parentRequest().map(j.requestId()::equals).orElse(false);
      if (ours && !j.spec().optional() && !j.state().isTerminal()) {
        pending++;
      }
    }
    if (pending > 0) {
      return new CompletionResult(CompletionResult.Status.NOT_DONE, r, pending);
    }
    int requiredSucceeded = 0;
    int requiredFailed = 0;
    int anyFailed = 0;
    for (Job j : jobs(id)) {
      boolean required = !j.spec().optional();
      if (j.state() == JobState.SUCCEEDED && required) {
        requiredSucceeded++;
      }
      if (j.state() == JobState.FAILED) {
        anyFailed++;
        if (required) {
          requiredFailed++;
        }
      }
    }
    Request done = put(r.get().completed(Outcome.of(requiredSucceeded, requiredFailed, anyFailed), now));
    return new CompletionResult(CompletionResult.Status.COMPLETED, Optional.of(done), 0);
  }

  @Override
  public synchronized CancelResult cancel(RequestId id, String reason) {
    QueueNames.text(reason, "cancellation reason");
    Instant now = now();
    Optional<Request> r = request(id);
    if (r.isEmpty()) {
      return CancelResult.unchanged(CancelResult.Status.NOT_FOUND, r);
    }
    if (r.get().state().isTerminal()) {
      return CancelResult.unchanged(CancelResult.Status.ALREADY_FINISHED, r);
    }
    return cancelOpen(r.get(), r.get().cancelled(reason, now), now);
  }

  private CancelResult cancelOpen(Request open, Request done, Instant now) {
    int cancelled = 0;
    int flagged = 0;
    for (Job j : jobs(open.id())) {
      if (j.state() == JobState.QUEUED) {
        put(j.cancelled(now));
        cancelled++;
      } else if (j.state() == JobState.LEASED && !j.cancelRequested()) {
        put(j.flaggedForCancellation());
        flagged++;
      }
    }
    return CancelResult.builder().status(CancelResult.Status.CANCELLED).request(put(done))
        .queuedJobsCancelled(cancelled).leasedJobsFlagged(flagged).build();
  }

  @Override
  public synchronized ClaimResult claim(ClaimCommand command) {
    Instant now = now();
    Collector found = listed(command.collector(), now);
    if (found == null) {
      return new ClaimResult(ClaimResult.Status.UNKNOWN_COLLECTOR, List.of());
    }
    if (!found.active()) {
      return new ClaimResult(ClaimResult.Status.INACTIVE_COLLECTOR, List.of());
    }
    collectors.put(found.name(), found.heartbeatAt(now));
    for (Job j : new ArrayList<>(jobs.values())) {
      if (j.spec().collectorTag().equals(found.tag())) {
        expire(j, now, command.maxCrashRescues());
      }
    }
    if (paused.contains(found.tag())) {
      return new ClaimResult(ClaimResult.Status.OK, List.of());
    }
    CollectorRegistration.takeAtClaim(found.heartbeatAt(now), liveHeld(found.name(), now))
        .ifPresent(c -> collectors.put(c.name(), c));
    Collector me = Objects.requireNonNull(collectors.get(found.name()));
    List<Claim> claims = new ArrayList<>();
    Instant expiry = QueueStore.truncate(now.plus(command.leaseDuration()));
    while (!me.usableDevices().isEmpty()) {
      // Everything is read again from all the jobs before each placement (the naive way); the pool keeps the
      // reservation computed last.
      List<DevicePlacement.Host> hosts = hosts(me.tag(), me.name(), now, command.collectorTimeout());
      int mostFree = DevicePlacement.mostFree(hosts);
      List<DevicePlacement.Candidate> candidates = gpuCandidates(me.tag(), now, mostFree);
      DevicePlacement.KeptReservation before = kept.get(me.tag());
      DevicePlacement.KeptReservation after = DevicePlacement.keep(before, heldBack(before, me.tag(), now, mostFree),
          DevicePlacement.reservation(hosts, candidates, now, before));
      if (after != null) {
        kept.put(me.tag(), after);
      } else {
        kept.remove(me.tag());
      }
      if (claims.size() >= command.limit()) {
        break;
      }
      Optional<DevicePlacement.Placement> placement = DevicePlacement.place(hosts, me.name(), candidates, now,
          kept.get(me.tag()));
      if (placement.isEmpty()) {
        break;
      }
      Job j = Objects.requireNonNull(jobs.get(placement.get().job().value()));
      Lease lease = j.nextLease(++tokens, expiry, me.name(), placement.get().devices());
      estimatedEnds.put(j.id().value(), DevicePlacement.estimatedEnd(now, j.spec().estimate(), expiry));
      claims.add(new Claim(put(j.claimed(lease)), lease));
    }
    List<Job> candidates = new ArrayList<>();
    for (Job j : jobs.values()) {
      if (j.state() == JobState.QUEUED && j.spec().collectorTag().equals(me.tag()) && j.spec().gpus() == 0
          && mayClaim(j, me.name(), now, command.collectorTimeout())) {
        candidates.add(j);
      }
    }
    candidates.sort(Comparator.comparing((Job j) -> j.affinity().equals(Optional.of(me.name())) ? 0 : 1)
        .thenComparing(Job::id));
    if (shares.covers(me.tag())) {
      // One at a time: the first candidate the shares admit, given the leases taken so far.
      while (claims.size() < command.limit()) {
        ShareLedger ledger = ledger(me.tag(), now);
        Job next = null;
        for (Job j : candidates) {
          if (Objects.requireNonNull(jobs.get(j.id().value())).state() == JobState.QUEUED && ledger.admits(shares, j.spec())) {
            next = j;
            break;
          }
        }
        if (next == null) {
          break;
        }
        Lease lease = next.nextLease(++tokens, expiry, me.name());
        claims.add(new Claim(put(next.claimed(lease)), lease));
      }
      return new ClaimResult(ClaimResult.Status.OK, claims);
    }
    for (Job j : candidates.subList(0, Math.min(command.limit() - claims.size(), candidates.size()))) {
      Lease lease = j.nextLease(++tokens, QueueStore.truncate(now.plus(command.leaseDuration())), me.name());
      claims.add(new Claim(put(j.claimed(lease)), lease));
    }
    return new ClaimResult(ClaimResult.Status.OK, claims);
  }

  /** The live leases and queued jobs of a pool, read in full. */
  private ShareLedger ledger(String tag, Instant now) {
    List<JobSpec> live = new ArrayList<>();
    List<JobSpec> queued = new ArrayList<>();
    for (Job j : jobs.values()) {
      if (!j.spec().collectorTag().equals(tag)) {
        continue;
      }
      if (j.state() == JobState.QUEUED) {
        queued.add(j.spec());
      } else if (j.state() == JobState.LEASED && j.lease().orElseThrow().isLiveAt(now)) {
        live.add(j.spec());
      }
    }
    return ShareLedger.of(tag, live, queued);
  }

  /** Whether the job of a pool's kept reservation is still queued and its share refuses it now. */
  private boolean heldBack(DevicePlacement.@org.jspecify.annotations.Nullable KeptReservation reservation, String tag, Instant now,
      int mostFree) {
    if (reservation == null) {
      return false;
    }
    Job j = jobs.get(reservation.job().value());
    return j != null && j.state() == JobState.QUEUED && !ledger(tag, now).admits(shares, j.spec(), mostFree);
  }

  /**
   * The oldest queued job of each GPU count of a tag that the shares admit, and the job that holds the pool's
   * kept reservation when it is queued and admitted too.
   */
  private List<DevicePlacement.Candidate> gpuCandidates(String tag, Instant now, int mostFree) {
    TreeMap<Integer, Job> oldest = new TreeMap<>();
    ShareLedger ledger = ledger(tag, now);
    DevicePlacement.KeptReservation reserved = kept.get(tag);
    Job holder = null;
    for (Job j : jobs.values()) {
      if (j.state() == JobState.QUEUED && j.spec().collectorTag().equals(tag) && j.spec().gpus() > 0
          && ledger.admits(shares, j.spec(), mostFree)) {
        oldest.putIfAbsent(j.spec().gpus(), j);
        if (reserved != null && j.id().equals(reserved.job())) {
          holder = j;
        }
      }
    }
    List<DevicePlacement.Candidate> out = new ArrayList<>();
    for (Job j : oldest.values()) {
      out.add(new DevicePlacement.Candidate(j.id(), j.spec().gpus(), j.spec().estimate()));
    }
    if (holder != null && !oldest.containsValue(holder)) {
      out.add(new DevicePlacement.Candidate(holder.id(), holder.spec().gpus(), holder.spec().estimate()));
    }
    return out;
  }

  /** The live collectors of a tag with devices (the claimer always), each with its leases on devices. */
  private List<DevicePlacement.Host> hosts(String tag, String claimer, Instant now, Duration timeout) {
    List<DevicePlacement.Host> out = new ArrayList<>();
    for (Collector c : collectors.values()) {
      if (!c.tag().equals(tag) || c.devices().isEmpty()
          || !(c.name().equals(claimer) || c.isLiveAt(now, timeout))) {
        continue;
      }
      List<DevicePlacement.Holding> holdings = new ArrayList<>();
      for (Job j : jobs.values()) {
        if (j.state() == JobState.LEASED && j.lease().orElseThrow().collector().equals(c.name())
            && j.spec().gpus() > 0 && j.lease().get().isLiveAt(now)) {
          holdings.add(new DevicePlacement.Holding(j.id(), j.lease().get().devices(),
              estimatedEnds.getOrDefault(j.id().value(), now)));
        }
      }
      out.add(new DevicePlacement.Host(c.name(), c.usableDevices(), holdings));
    }
    return out;
  }

  private boolean mayClaim(Job job, String collector, Instant now, Duration timeout) {
    if (job.affinity().isEmpty() || job.affinity().get().equals(collector)) {
      return true;
    }
    Collector previous = collectors.get(job.affinity().get());
    return previous == null || !previous.isLiveAt(now, timeout);
  }

  /** Processes the job's lease if it expired; returns which list of an ExpiryResult it belongs to, or -1. */
  private int expire(Job job, Instant now, int maxCrashRescues) {
    if (job.state() != JobState.LEASED || job.lease().orElseThrow().isLiveAt(now)) {
      return -1;
    }
    Lease lease = job.lease().get();
    if (job.cancelRequested()) {
      put(job.cancelled(now));
      return 2;
    }
    if (job.crashRescues() < maxCrashRescues) {
      put(job.rescued());
      return 0;
    }
    put(job.failed(JobFailure.crashBudgetExhausted(lease.collector(), job.crashRescues(), lease.expiresAt(), now)));
    return 1;
  }

  @Override
  public synchronized LeaseResult heartbeat(LeaseRef lease, Duration leaseDuration) {
    Instant now = now();
    Optional<LeaseResult> refused = refuse(lease, now);
    if (refused.isPresent()) {
      return refused.get();
    }
    Job j = job(lease.jobId()).orElseThrow();
    touch(j, now);
    Instant expiry = QueueStore.truncate(now.plus(leaseDuration));
    return new LeaseResult(LeaseStatus.OK, Optional.of(put(j.renewed(expiry))));
  }

  @Override
  public synchronized LeaseResult complete(LeaseRef lease, @Nullable ResultPayload result) {
    Instant now = now();
    Optional<LeaseResult> refused = refuse(lease, now);
    if (refused.isPresent()) {
      return refused.get();
    }
    Job j = job(lease.jobId()).orElseThrow();
    touch(j, now);
    Lease held = j.lease().orElseThrow();
    if (result != null) {
      results.put(j.id().value(), JobResult.builder().jobId(j.id()).requestId(j.requestId())
          .attempt(held.attempt()).collector(held.collector()).storedAt(now).payload(result).build());
    }
    return new LeaseResult(LeaseStatus.OK, Optional.of(put(j.succeeded(now))));
  }

  @Override
  public synchronized Optional<JobResult> result(JobId id) {
    return Optional.ofNullable(results.get(id.value()));
  }

  @Override
  public synchronized List<JobResult> results(RequestId requestId) {
    return results.values().stream().filter(x -> x.requestId().equals(requestId)).toList();
  }

  @Override
  public synchronized LeaseResult fail(LeaseRef lease, Failure failure, int maxTransientRetries) {
    Instant now = now();
    Optional<LeaseResult> refused = refuse(lease, now);
    if (refused.isPresent()) {
      return refused.get();
    }
    Job j = job(lease.jobId()).orElseThrow();
    touch(j, now);
    String collector = j.lease().orElseThrow().collector();
    Job next;
    if (failure.kind() == Failure.Kind.PERMANENT) {
      next = j.failed(JobFailure.permanent(collector, failure.detail(), now));
    } else if (j.transientRetries() < maxTransientRetries) {
      next = j.retriedAfterTransientFailure(failure.detail());
    } else {
      next = j.failed(JobFailure.transientBudgetExhausted(collector, j.transientRetries(), failure.detail(), now));
    }
    return new LeaseResult(LeaseStatus.OK, Optional.of(put(next)));
  }

  @Override
  public synchronized LeaseResult release(LeaseRef lease) {
    Instant now = now();
    Optional<LeaseResult> refused = refuse(lease, now);
    if (refused.isPresent()) {
      return refused.get();
    }
    Job j = job(lease.jobId()).orElseThrow();
    touch(j, now);
    return new LeaseResult(LeaseStatus.OK, Optional.of(put(j.released())));
  }

  /** The refusal of a fenced update (not found, stale, or cancelled after a flag), if any. */
  private Optional<LeaseResult> refuse(LeaseRef lease, Instant now) {
    Optional<Job> found = job(lease.jobId());
    if (found.isEmpty()) {
      return Optional.of(new LeaseResult(LeaseStatus.NOT_FOUND, Optional.empty()));
    }
    Job j = found.get();
    if (j.state() != JobState.LEASED || !lease.matches(j.lease().orElseThrow())
        || !j.lease().get().isLiveAt(now)) {
      return Optional.of(new LeaseResult(LeaseStatus.STALE_LEASE, Optional.of(j)));
    }
    if (j.cancelRequested()) {
      touch(j, now);
      return Optional.of(new LeaseResult(LeaseStatus.CANCELLED, Optional.of(put(j.cancelled(now)))));
    }
    return Optional.empty();
  }

  private void touch(Job leased, Instant now) {
    String holder = leased.lease().orElseThrow().collector();
    Collector c = collectors.get(holder);
    if (c != null) {
      collectors.put(holder, c.heartbeatAt(now));
    }
  }

  @Override
  public synchronized ExpiryResult expireLeases(int maxCrashRescues) {
    Instant now = now();
    List<List<Job>> changes = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (Job j : new ArrayList<>(jobs.values())) {
      int list = expire(j, now, maxCrashRescues);
      if (list >= 0) {
        changes.get(list).add(job(j.id()).orElseThrow());
      }
    }
    return ExpiryResult.builder().rescued(changes.get(0)).failed(changes.get(1)).cancelled(changes.get(2))
        .build();
  }

  @Override
  public synchronized Optional<Job> job(JobId id) {
    return Optional.ofNullable(jobs.get(id.value()));
  }

  @Override
  public synchronized List<Job> jobs(RequestId requestId) {
    return jobs.values().stream().filter(j -> j.requestId().equals(requestId)).toList();
  }

  @Override
  public synchronized PoolView pool(String tag, Duration collectorTimeout) {
    QueueNames.check(tag, "collector tag");
    Instant now = now();
    List<Job> queued = new ArrayList<>();
    for (Job j : jobs.values()) {
      if (j.state() == JobState.QUEUED && j.spec().collectorTag().equals(tag)) {
        queued.add(j);
      }
    }
    List<String> live = new ArrayList<>();
    for (Collector c : collectors.values()) {
      if (c.tag().equals(tag) && c.isLiveAt(now, collectorTimeout)) {
        live.add(c.name());
      }
    }
    // No claimer: only live hosts count ("" names no collector).
    PoolView view = DevicePlacement.view(tag, now, queued, hosts(tag, "", now, collectorTimeout), live, shares,
        ledger(tag, now), kept.get(tag));
    return paused.contains(tag) ? view.paused() : view;
  }

  @Override
  public synchronized RetryResult retryJob(JobId id, int maxInProgress) {
    Objects.requireNonNull(id, "job id");
    Job job = jobs.get(id.value());
    if (job == null) {
      return RetryResult.unchanged(RetryResult.Status.NOT_FOUND, null, null);
    }
    Request request = Objects.requireNonNull(requests.get(job.requestId().value()), "the request of a job");
    if (job.state() != JobState.FAILED && job.state() != JobState.CANCELLED) {
      return RetryResult.unchanged(RetryResult.Status.NOT_RETRYABLE, job, request);
    }
    if (request.state() == RequestState.CANCELLED) {
      return RetryResult.unchanged(RetryResult.Status.REQUEST_CANCELLED, job, request);
    }
    boolean reopen = request.state() == RequestState.COMPLETED;
    if (reopen && request.kind().isCapped()
        && inProgressRequests().stream().filter(r -> r.kind().isCapped()).count() >= maxInProgress) {
      return RetryResult.unchanged(RetryResult.Status.CAP_REACHED, job, request);
    }
    if (reopen && request.pr().isPresent() && openRequests().stream().anyMatch(r -> r.kind() == request.kind()
        && r.pr().equals(request.pr()))) {
      return RetryResult.unchanged(RetryResult.Status.PR_HAS_OPEN_REQUEST, job, request);
    }
    now();
    Job queued = put(job.retried());
    Request after = reopen ? put(request.reopened()) : request;
    return new RetryResult(RetryResult.Status.RETRIED, Optional.of(queued), Optional.of(after), reopen);
  }

  @Override
  public synchronized boolean setPoolPaused(String tag, boolean pause) {
    QueueNames.check(tag, "pool");
    return pause ? paused.add(tag) : paused.remove(tag);
  }

  @Override
  public synchronized Set<String> pausedPools() {
    return Set.copyOf(paused);
  }

  @Override
  public synchronized void setShares(FleetShares fleetShares) {
    if (fleetShares == null) {
      throw new InvalidQueueInputException("setShares needs fleet shares; got none");
    }
    shares = fleetShares;
  }

  @Override
  public synchronized FleetShares shares() {
    return shares;
  }

  @Override
  public synchronized RegisterResult registerCollector(String name, String tag, boolean active) {
    return registerCollector(name, tag, active, Devices.none());
  }

  @Override
  public synchronized RegisterResult registerCollector(String name, String tag, boolean active,
      Devices devices) {
    if (devices == null) {
      throw new InvalidQueueInputException("collector " + name + " has no device inventory; expected one,"
          + " possibly empty");
    }
    QueueNames.check(name, "collector name");
    QueueNames.check(tag, "collector tag");
    Instant now = now();
    Collector existing = collectors.get(name);
    CollectorRegistration.Decision d = CollectorRegistration.register(existing, name, tag, active, devices, now,
        holdsLiveLease(name, now), liveHeld(name, now));
    d.next().ifPresent(c -> collectors.put(name, c));
    return new RegisterResult(d.status(), Objects.requireNonNull(collectors.get(name)));
  }

  @Override
  public synchronized RetireResult retireCollector(String name) {
    QueueNames.check(name, "collector name");
    Instant now = now();
    Collector c = collectors.get(name);
    RetireResult result = CollectorRegistration.retire(c, holdsLiveLease(name, now));
    if (c != null && result.status() != RetireResult.Status.NOT_FOUND) {
      collectors.put(name, c.asRetiring());
    }
    return result;
  }

  @Override
  public synchronized CollectorResult collectorHeartbeat(String name) {
    QueueNames.check(name, "collector name");
    Instant now = now();
    Collector c = listed(name, now);
    if (c == null) {
      return new CollectorResult(CollectorResult.Status.NOT_FOUND, Optional.empty());
    }
    collectors.put(name, c.heartbeatAt(now));
    return new CollectorResult(CollectorResult.Status.OK, Optional.of(collectors.get(name)));
  }

  @Override
  public synchronized CollectorResult setCollectorActive(String name, boolean active) {
    QueueNames.check(name, "collector name");
    Collector c = listed(name, now());
    if (c == null) {
      return new CollectorResult(CollectorResult.Status.NOT_FOUND, Optional.empty());
    }
    if (c.retiring()) {
      return new CollectorResult(CollectorResult.Status.RETIRING, Optional.of(c));
    }
    if (c.active() == active) {
      return new CollectorResult(CollectorResult.Status.UNCHANGED, Optional.of(c));
    }
    collectors.put(name, c.withActive(active));
    return new CollectorResult(CollectorResult.Status.OK, Optional.of(collectors.get(name)));
  }

  @Override
  public synchronized Optional<Collector> collector(String name) {
    QueueNames.check(name, "collector name");
    return Optional.ofNullable(listed(name, now()));
  }

  @Override
  public synchronized List<Collector> collectors() {
    Instant now = now();
    return collectors.keySet().stream().map(n -> listed(n, now)).filter(Objects::nonNull).toList();
  }

  /** The collector with this name unless it retired and holds no live lease, or null. */
  private @Nullable Collector listed(String name, Instant now) {
    Collector c = collectors.get(name);
    return c == null || !CollectorRegistration.listed(c, holdsLiveLease(name, now)) ? null : c;
  }

  /** Whether some job's live lease is held by the collector. */
  private boolean holdsLiveLease(String name, Instant now) {
    for (Job j : jobs.values()) {
      if (j.state() == JobState.LEASED && j.lease().orElseThrow().collector().equals(name)
          && j.lease().get().isLiveAt(now)) {
        return true;
      }
    }
    return false;
  }

  /** The devices of the collector that live leases hold. */
  private Set<Integer> liveHeld(String name, Instant now) {
    Set<Integer> held = new java.util.TreeSet<>();
    for (Job j : jobs.values()) {
      if (j.state() == JobState.LEASED && j.lease().orElseThrow().collector().equals(name)
          && j.lease().get().isLiveAt(now)) {
        held.addAll(j.lease().get().devices());
      }
    }
    return held;
  }

  @Override
  public synchronized HistoryPage history(int limit, @Nullable HistoryCursor after) {
    HistoryPage.checkedLimit(limit);
    List<HistoryEntry> read = requests.values().stream()
        .filter(r -> r.state() == RequestState.COMPLETED && (after == null || after.precedes(r)))
        .sorted(Comparator.comparing((Request r) -> r.finishedAt().orElseThrow()).thenComparing(Request::id)
            .reversed())
        .limit(limit + 1L)
        .map(r -> new HistoryEntry(r, jobs(r.id()).stream().filter(j -> j.state() == JobState.FAILED).toList()))
        .toList();
    return HistoryPage.of(read, limit);
  }

  @Override
  public synchronized LeaseStatus appendLog(LeaseRef lease, List<LogChunk> chunks) {
    java.util.Objects.requireNonNull(lease, "lease");
    List<LogChunk> checked = LogWindow.checkAppend(chunks);
    Instant now = now();
    Optional<Job> j = job(lease.jobId());
    if (j.isEmpty()) {
      return LeaseStatus.NOT_FOUND;
    }
    Optional<Lease> held = j.get().lease();
    if (held.isEmpty() || !lease.matches(held.get()) || !held.get().isLiveAt(now)) {
      return LeaseStatus.STALE_LEASE;
    }
    String key = lease.jobId().value() + "/" + lease.attempt();
    logs.put(key, logs.getOrDefault(key, LogWindow.emptyStore()).append(checked));
    return LeaseStatus.OK;
  }

  @Override
  public synchronized Optional<JobLogView> log(JobId id, int attempt, long from) {
    LogWindow.checkRead(id, attempt, from);
    Optional<Job> j = job(id);
    if (j.isEmpty() || attempt > j.get().attempt()) {
      return Optional.empty();
    }
    return Optional.of(logs.getOrDefault(id.value() + "/" + attempt, LogWindow.emptyStore())
        .view(id, attempt, from, LogWindow.finished(j.get(), attempt, now())));
  }

  @Override
  public synchronized PurgeResult purge(String tag) {
    Optional<Request> found = requestByTag(tag);
    if (found.isEmpty()) {
      return PurgeResult.unchanged(PurgeResult.Status.NOT_FOUND, found);
    }
    Request r = found.get();
    if (r.state().isOpen()) {
      return PurgeResult.unchanged(PurgeResult.Status.REQUEST_OPEN, found);
    }
    List<Job> own = jobs(r.id());
    if (own.stream().anyMatch(j -> j.state() == JobState.LEASED)) {
      return PurgeResult.unchanged(PurgeResult.Status.JOB_LEASED, found);
    }
    int removedResults = 0;
    for (Job j : own) {
      jobs.remove(j.id().value());
      logs.subMap(j.id().value() + "/", j.id().value() + "0").clear();
      attempts.remove(j.id().value());
      if (results.remove(j.id().value()) != null) {
        removedResults++;
      }
    }
    requests.remove(r.id().value());
    return PurgeResult.builder().status(PurgeResult.Status.PURGED).request(found).jobsRemoved(own.size())
        .resultsRemoved(removedResults).build();
  }

  private Request put(Request r) {
    requests.put(r.id().value(), r);
    return r;
  }

  /** Writes a job's new value, recording the attempt its new lease starts or the end of the one it ended. */
  private Job put(Job j) {
    Job before = jobs.put(j.id().value(), j);
    if (before != null) {
      JobAttempt.endOf(before, j, lastNow).ifPresent(end -> {
        List<JobAttempt> list = Objects.requireNonNull(attempts.get(j.id().value()), "attempts of a leased job");
        list.set(end.attempt() - 1, list.get(end.attempt() - 1).ended(end));
      });
      Optional<Lease> started = j.lease();
      if (started.isPresent() && before.lease().map(l -> l.token() != started.get().token()).orElse(true)) {
        attempts.computeIfAbsent(j.id().value(), k -> new ArrayList<>()).add(JobAttempt.started(started.get(),
            lastNow));
      }
    }
    return j;
  }

  @Override
  public synchronized List<JobAttempt> attempts(JobId id) {
    Objects.requireNonNull(id, "job id");
    return List.copyOf(attempts.getOrDefault(id.value(), List.of()));
  }
}

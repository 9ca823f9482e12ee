package dev.cipolicy.queue;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.CompleteAndClaimResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.RequestScan;
import dev.cipolicy.queue.spi.RetireResult;
import dev.cipolicy.queue.spi.RetryResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The job-queue engine a site and its collectors drive: it submits and cancels requests, runs the site
 * tick, hands out and fences job leases, and tracks collectors. It holds no state of its own: every
 * change is one atomic operation of its {@link QueueStore}, so any number of engines (sites, collectors,
 * threads or processes) may share one store. The engine has no clock: every instant it reports (the tick's,
 * the status view's, a collector's online status) is the store's ({@link QueueStore#now()}), the one clock
 * that lease expiry and heartbeats are measured on, so engines on hosts whose clocks disagree still agree on
 * every lease. The engine owns no thread. Bad arguments raise {@link InvalidQueueInputException}; every
 * domain outcome is a result value.
 */
public final class JobQueue {

  private final QueueStore store;
  private final QueueSettings settings;

  private JobQueue(QueueStore store, QueueSettings settings) {
    this.store = store;
    this.settings = settings;
  }

  /**
   * An engine over a store; time is the store's.
   *
   * @param store the store, shared by every site and collector
   * @param settings the queue's rules
   * @return the engine
   */
  public static JobQueue of(QueueStore store, QueueSettings settings) {
    return new JobQueue(present(store, "store"), present(settings, "settings"));
  }

  /**
   * An engine over a new {@link InMemoryQueueStore}, the embedded default, on the given clock.
   *
   * @param clock the store's clock, the only source of time (e.g. {@code Clock.systemUTC()}, or a settable
   *     clock in a test)
   * @param settings the queue's rules
   * @return the engine
   */
  public static JobQueue inMemory(InstantSource clock, QueueSettings settings) {
    return of(new InMemoryQueueStore(present(clock, "clock")), settings);
  }

  /**
   * The store; share it to run more sites or collectors on the same queue.
   *
   * @return the store
   */
  public QueueStore store() {
    return store;
  }

  /**
   * The rules.
   *
   * @return the settings
   */
  public QueueSettings settings() {
    return settings;
  }

  // ---------------------------------------------------------------------------------------------- requests

  /**
   * Submits a request; a duplicate tag, or a second open request of a PR and kind, is a reported no-op.
   *
   * @param request the request
   * @return created, or the duplicate
   */
  public SubmitResult submit(NewRequest request) {
    return store.submit(present(request, "request"));
  }

  /**
   * Submits a CI run with the jobs its submitter planned: created in progress with its jobs queued, in one
   * step, outside the in-progress cap; the same run (repository, run id, attempt) again is {@code ATTACHED}
   * and changes nothing; a run with a concurrency group cancels the open older runs of its repository and
   * group, and is itself created cancelled ({@code SUPERSEDED}) when a newer one of the group is open.
   *
   * @param run the run
   * @param jobs its jobs, unique by group and tag
   * @return created, attached or superseded, with the runs it superseded
   * @throws InvalidQueueInputException when the run or a job is missing or invalid
   */
  public SubmitResult submitCiRun(@Nullable CiRun run, @Nullable List<JobSpec> jobs) {
    return store.submit(NewRequest.ciRun(run, jobs));
  }

  /**
   * The CI run request with this key, in any state.
   *
   * @param repository {@code owner/name}
   * @param runId the workflow run id
   * @param attempt the attempt
   * @return the request, if any
   * @throws InvalidQueueInputException when the key is invalid
   */
  public Optional<Request> ciRun(String repository, long runId, int attempt) {
    return store.ciRun(new CiRunKey(repository, runId, attempt));
  }

  /**
   * Attaches a waiting try request's SHA and parent (a compare-and-set: only a waiting request changes).
   *
   * @param id the try request
   * @param sha its head SHA
   * @param parentSha the SHA it is compared with
   * @return what happened
   */
  public AttachResult attachArtifacts(RequestId id, String sha, String parentSha) {
    present(id, "request id");
    token(sha, "try SHA");
    token(parentSha, "try parent SHA");
    if (sha.equals(parentSha)) {
      throw new InvalidQueueInputException("try SHA '" + sha + "' of " + id + " cannot be its own parent SHA");
    }
    return store.attachArtifacts(id, sha, parentSha);
  }

  /**
   * Cancels an open request (a closed PR, a superseded try): queued jobs are cancelled, leased jobs
   * flagged; their collectors learn it on their next heartbeat.
   *
   * @param id the request
   * @param reason why, e.g. {@code PR closed}
   * @return what happened
   */
  public CancelResult cancel(RequestId id, String reason) {
    present(id, "request id");
    if (reason == null || reason.isBlank()) {
      throw new InvalidQueueInputException("cancelling " + id + " needs a reason, e.g. 'PR closed'");
    }
    return store.cancel(id, QueueNames.text(reason, "cancellation reason"));
  }

  /**
   * The jobs the site creates for a request when it starts: those of the settings' {@link JobPlanner}, else
   * one per benchmark group and collector target ({@link QueueSettings#jobsFor(Request)}).
   *
   * @param request the request
   * @return the job specs
   */
  public List<JobSpec> jobsFor(Request request) {
    return settings.jobsFor(present(request, "request"));
  }

  /**
   * The site tick: processes expired leases, completes every in-progress request whose required jobs (and
   * its parent's) are terminal, then starts ready requests in queue order while fewer than K are in
   * progress. A start another site won is skipped; a reached cap (another site started one) ends the tick.
   * A request without jobs completes in the same tick. The jobs of a request come from
   * {@link QueueSettings#jobsFor(Request)} (the host's {@link JobPlanner}, if it has one), and when backfill is
   * on its parent receives the same jobs; a planner that fails, or plans a group and tag twice, ends the tick
   * with its exception before the request starts.
   *
   * <p>A row edited by hand into a state no operation produces never stops the tick: the store reports it
   * (in its scans, or as an {@link ImpossibleRowException} for the one request an operation needed), the
   * tick leaves that request alone, records the row in {@link TickResult#impossibleRows()} with a
   * {@code queue.impossible-row} reason, and goes on with the others. Any other {@link QueueStoreException}
   * (the database is unreachable) ends the tick; the site loop catches it and ticks again later.
   *
   * @return what the tick did and why
   */
  public TickResult tick() {
    Instant now = store.now();
    List<Explanation.Reason> reasons = new ArrayList<>();
    List<ImpossibleRow> impossible = new ArrayList<>();
    ExpiryResult expired;
    try {
      expired = store.expireLeases(settings.maxCrashRescues());
    } catch (ImpossibleRowException e) {
      expired = ExpiryResult.builder().addImpossibleRows(e.row()).build();
    }
    if (!expired.isEmpty()) {
      reasons.add(new Explanation.Reason("queue.expire", expired.rescued().size() + " expired leases rescued, "
          + expired.failed().size() + " jobs out of crash budget failed, " + expired.cancelled().size()
          + " flagged jobs cancelled"));
    }
    expired.impossibleRows().forEach(row -> impossible(row, "its expired lease is left alone", impossible, reasons));
    List<Request> completed = new ArrayList<>();
    List<ComparisonEvent> events = new ArrayList<>();
    int running = 0;
    RequestScan inProgress = scan(store::scanInProgressRequests, "the request is not completed",
        "no request in progress is completed this tick", impossible, reasons);
    for (Request r : inProgress.requests()) {
      if (!tryComplete(r, completed, events, reasons, impossible) && r.kind().isCapped()) {
        running++; // CI runs do not count against the cap
      }
    }
    // Impossible rows in progress are counted: they may hold a slot, and the store's start enforces the cap.
    running += inProgress.impossibleRows().size();
    List<StartResult> started = new ArrayList<>();
    int cap = settings.maxInProgress();
    if (running >= cap) {
      reasons.add(new Explanation.Reason("queue.cap", running + " of at most " + cap
          + " requests in progress; nothing starts"));
    } else {
      RequestScan open = scan(store::scanOpenRequests, "the request is not started",
          "no request is started this tick", impossible, reasons);
      // Walks the order in place: the tick usually starts one request, so it copies no list of them.
      boolean anyReady = false;
      for (QueueOrder.Placed placed : orderOf(open.requests()).placed()) {
        if (placed.section() == QueueOrder.Section.IN_PROGRESS) {
          continue;
        }
        anyReady = true;
        if (running >= cap) {
          break;
        }
        Request candidate = placed.request();
        List<JobSpec> jobs = settings.jobsFor(candidate);
        StartResult result;
        try {
          result = store.startRequest(StartCommand.builder().requestId(candidate.id()).jobs(jobs)
              .backfillParent(settings.backfill() && !jobs.isEmpty()).maxInProgress(cap).build());
        } catch (ImpossibleRowException e) {
          impossible(e.row(), candidate.label() + " is not started", impossible, reasons);
          continue;
        }
        if (result.status() == StartResult.Status.STARTED) {
          started.add(result);
          reasons.add(new Explanation.Reason("queue.start", "started " + candidate.label() + " with "
              + result.jobs().size() + " jobs; backfill " + result.backfill().status().name().toLowerCase(Locale.ROOT)
              + " (" + result.backfill().created().size() + " new, " + result.backfill().existing() + " existing)"));
          Request startedRequest = result.request().orElseThrow();
          if (result.jobs().isEmpty() && tryComplete(startedRequest, completed, events, reasons, impossible)) {
            continue;
          }
          running++;
        } else if (result.status() == StartResult.Status.CAP_REACHED) {
          reasons.add(new Explanation.Reason("queue.cap", result.inProgress() + " of at most " + cap
              + " requests in progress (another site started one); " + candidate.label() + " waits"));
          break;
        } else {
          reasons.add(new Explanation.Reason("queue.race", candidate.label() + " is no longer ready ("
              + result.status().name().toLowerCase(Locale.ROOT) + "); trying the next"));
        }
      }
      if (!anyReady) {
        reasons.add(new Explanation.Reason("queue.empty", "no request is ready"));
      }
    }
    String decision = "tick at " + now + ": completed " + completed.size() + ", started " + started.size()
        + (impossible.isEmpty() ? "" : ", " + impossible.size() + " impossible rows left alone");
    return new TickResult(now, expired, completed, events, started, new Explanation(decision, reasons, List.of()),
        impossible);
  }

  /**
   * Reads a scan and reports its impossible rows with {@code consequence}; a store that throws for an
   * impossible row instead yields an empty scan, reported with {@code whenFailed}.
   */
  private static RequestScan scan(Supplier<RequestScan> read, String consequence, String whenFailed,
      List<ImpossibleRow> impossible, List<Explanation.Reason> reasons) {
    try {
      RequestScan scan = read.get();
      scan.impossibleRows().forEach(row -> impossible(row, consequence, impossible, reasons));
      return scan;
    } catch (ImpossibleRowException e) {
      impossible(e.row(), whenFailed, impossible, reasons);
      return RequestScan.of(List.of());
    }
  }

  private static void impossible(ImpossibleRow row, String consequence, List<ImpossibleRow> impossible,
      List<Explanation.Reason> reasons) {
    if (!impossible.contains(row)) {
      impossible.add(row);
      reasons.add(new Explanation.Reason("queue.impossible-row", row.message() + "; " + consequence
          + " until the row is repaired"));
    }
  }

  private boolean tryComplete(Request r, List<Request> completed, List<ComparisonEvent> events,
      List<Explanation.Reason> reasons, List<ImpossibleRow> impossible) {
    CompletionResult result;
    try {
      result = store.completeIfDone(r.id());
    } catch (ImpossibleRowException e) {
      impossible(e.row(), r.label() + " is not completed", impossible, reasons);
      return false;
    }
    switch (result.status()) {
      case COMPLETED -> {
        Request done = result.request().orElseThrow();
        completed.add(done);
        if (done.kind().isCompared()) {
          events.add(ComparisonEvent.of(done));
        }
        reasons.add(new Explanation.Reason("queue.complete", "completed " + done.label() + " with outcome "
            + done.outcome().orElseThrow().documentName()));
        return true;
      }
      case NOT_DONE -> {
        reasons.add(new Explanation.Reason("queue.wait", r.label() + " waits for " + result.pendingJobs()
            + " required jobs"));
        return false;
      }
      default -> {
        // Another site completed it, or it was cancelled, since the list was read.
        return true;
      }
    }
  }

  /**
   * The queue order of the open requests now.
   *
   * @return the order
   */
  public QueueOrder order() {
    return orderOf(store.openRequests());
  }

  /** The order of the open requests, with the parents outside them looked up in the store. */
  private QueueOrder orderOf(List<Request> open) {
    Set<String> outside = QueueOrder.parentTagsOutside(open);
    return QueueOrder.of(open, outside.isEmpty() ? Set.of() : store.knownTags(outside));
  }

  /**
   * The status view now: positions, requests ahead and ETAs. Request rows edited into impossible states are
   * left out of the order and listed in {@link QueueStatus#impossibleRows()}.
   *
   * @return the status
   */
  public QueueStatus status() {
    RequestScan open = store.scanOpenRequests();
    return orderOf(open.requests()).status(store.now(), settings.expectedRequestDuration(),
        settings.maxInProgress()).withImpossibleRows(open.impossibleRows());
  }

  /**
   * One page of the history: the completed requests newest first, each with its failed jobs' errors.
   *
   * @param limit the page size, 1 to {@link HistoryPage#MAX_LIMIT}
   * @param after the previous page's {@link HistoryPage#next()}, or null for the newest requests
   * @return the page
   */
  public HistoryPage history(int limit, @Nullable HistoryCursor after) {
    return store.history(HistoryPage.checkedLimit(limit), after);
  }

  /**
   * Purges an artifact: removes its closed request with its jobs and their results (an open request is
   * refused: cancel it first).
   *
   * @param tag the SHA or release tag
   * @return what happened
   */
  public PurgeResult purge(String tag) {
    return store.purge(token(tag, "tag"));
  }

  /**
   * An operator's retry of a failed or cancelled job: queued again with fresh budgets, its completed request
   * reopened within the settings' cap (see {@link QueueStore#retryJob}).
   *
   * @param id the job
   * @return what happened
   */
  public RetryResult retryJob(JobId id) {
    present(id, "job id");
    return store.retryJob(id, settings.maxInProgress());
  }

  /**
   * Pauses or resumes a pool: its collectors claim nothing while it is paused (see
   * {@link QueueStore#setPoolPaused}).
   *
   * @param tag the pool (collector tag)
   * @param paused true to pause, false to resume
   * @return true when the state changed
   */
  public boolean setPoolPaused(String tag, boolean paused) {
    return store.setPoolPaused(token(tag, "pool"), paused);
  }

  // ---------------------------------------------------------------------------------------------- collectors

  /**
   * Retires a collector: it claims nothing more, its live leases run to their end, and it is gone once it holds
   * none (see {@link QueueStore#retireCollector}).
   *
   * @param name the collector
   * @return {@code RETIRED}, {@code RETIRING} (it still holds live leases) or {@code NOT_FOUND}
   */
  public RetireResult retireCollector(String name) {
    return store.retireCollector(token(name, "collector name"));
  }

  /**
   * Registers a collector without devices; the same name again is a reported no-op (refused if the tag
   * differs), or changes its inventory to none (see {@link QueueStore#registerCollector(String, String, boolean,
   * Devices)}).
   *
   * @param name its unique name
   * @param tag the tag of the jobs it runs
   * @param active whether it may claim
   * @return what happened
   */
  public RegisterResult registerCollector(String name, String tag, boolean active) {
    return store.registerCollector(token(name, "collector name"), token(tag, "collector tag"), active);
  }

  /**
   * Registers a host: a collector that advertises devices and runs the GPU jobs of its pool; the same name
   * with the same tag and devices again is a reported no-op, and with other devices changes its inventory, at
   * once or, while a live lease holds a removed device, once that lease ends ({@link RegisterResult.Status}).
   *
   * @param name its unique name
   * @param tag the pool of the jobs it runs
   * @param devices its devices (indices and optional groups)
   * @return what happened
   */
  public RegisterResult registerHost(String name, String tag, @Nullable Devices devices) {
    return store.registerCollector(token(name, "collector name"), token(tag, "collector tag"), true,
        Checks.present(devices, "devices of host " + name));
  }

  /**
   * Replaces the fleet shares the store enforces on every claim (see {@link FleetShares}).
   *
   * @param shares the shares; {@link FleetShares#none()} caps nothing
   */
  public void setShares(FleetShares shares) {
    store.setShares(shares);
  }

  /**
   * The fleet shares the store enforces.
   *
   * @return the shares
   */
  public FleetShares shares() {
    return store.shares();
  }

  /**
   * The view of a pool now: its live hosts with their leases, the reservation the next claim honours, a
   * dormant reservation, and why each queued job waits (a collector is live while its heartbeat is younger
   * than the settings' collector timeout).
   *
   * @param pool the pool (collector tag)
   * @return the view
   */
  public PoolView pool(String pool) {
    return store.pool(token(pool, "collector tag"), settings.collectorTimeout());
  }

  /**
   * Why each queued job of a pool waits: the waits of {@link #pool(String)}.
   *
   * @param pool the pool (collector tag)
   * @return the waiting jobs with their reasons, by job id
   */
  public List<JobWait> waitingJobs(String pool) {
    return pool(pool).waits();
  }

  /**
   * Records a collector's sign of life.
   *
   * @param name the collector
   * @return {@code OK} or {@code NOT_FOUND}
   */
  public CollectorResult collectorHeartbeat(String name) {
    return store.collectorHeartbeat(token(name, "collector name"));
  }

  /**
   * Deactivates a collector: it claims nothing more, and its requeued jobs go to its pool.
   *
   * @param name the collector
   * @return what happened
   */
  public CollectorResult deactivate(String name) {
    return store.setCollectorActive(token(name, "collector name"), false);
  }

  /**
   * Activates a collector again.
   *
   * @param name the collector
   * @return what happened
   */
  public CollectorResult activate(String name) {
    return store.setCollectorActive(token(name, "collector name"), true);
  }

  /**
   * Every collector with its online, offline or inactive status now, on the store's clock.
   *
   * @return the statuses, by name
   */
  public List<CollectorStatus> collectors() {
    Instant now = store.now();
    return store.collectors().stream().map(c -> CollectorStatus.of(c, now, settings.collectorTimeout())).toList();
  }

  // ---------------------------------------------------------------------------------------------- jobs

  /**
   * Claims one job for a collector.
   *
   * @param collector the collector's name
   * @return the claim (possibly none)
   */
  public ClaimResult claim(String collector) {
    return claim(collector, 1);
  }

  /**
   * Claims up to {@code limit} jobs of the collector's tag, its own requeued jobs first.
   *
   * @param collector the collector's name
   * @param limit at least 1
   * @return the claims (possibly none)
   */
  public ClaimResult claim(String collector, int limit) {
    return store.claim(claimCommand(collector, limit));
  }

  /**
   * Renews a lease; {@code CANCELLED} tells the collector to stop, {@code STALE_LEASE} that the job is no
   * longer its own.
   *
   * @param lease the lease
   * @return what happened
   */
  public LeaseResult heartbeat(Lease lease) {
    present(lease, "lease");
    return store.heartbeat(LeaseRef.of(lease), settings.leaseDuration());
  }

  /**
   * Appends a running job's output to the log the store keeps of the lease's attempt (fenced like
   * {@link #heartbeat}; see {@link QueueStore#appendLog}).
   *
   * @param lease the lease
   * @param chunks the output, in order
   * @return {@code OK}, {@code STALE_LEASE} or {@code NOT_FOUND}
   */
  public LeaseStatus appendLog(Lease lease, List<LogChunk> chunks) {
    present(lease, "lease");
    return store.appendLog(LeaseRef.of(lease), chunks);
  }

  /**
   * Reads a job's log: the kept output of one attempt after an offset (see {@link QueueStore#log(JobId, int,
   * long)}); a follower reads again from the returned {@link JobLogView#totalBytes()}.
   *
   * @param id the job
   * @param attempt the attempt, 1 or more
   * @param from the offset already read
   * @return the view, or empty for an unknown job or attempt
   */
  public Optional<JobLogView> log(JobId id, int attempt, long from) {
    return store.log(id, attempt, from);
  }

  /**
   * Reads the log of a job's latest attempt.
   *
   * @param id the job
   * @return the view, or empty for an unknown or never claimed job
   */
  public Optional<JobLogView> log(JobId id) {
    return store.log(id);
  }

  /**
   * Completes the job of a lease, without a result.
   *
   * @param lease the lease
   * @return what happened
   */
  public LeaseResult complete(Lease lease) {
    present(lease, "lease");
    return store.complete(LeaseRef.of(lease));
  }

  /**
   * Completes the job of a lease and keeps its result in the same step: the result is kept exactly when this
   * lease's completion succeeds, never for a stale attempt.
   *
   * @param lease the lease
   * @param result the job's result
   * @return what happened
   */
  public LeaseResult complete(Lease lease, ResultPayload result) {
    present(lease, "lease");
    return store.complete(LeaseRef.of(lease), present(result, "result"));
  }

  /**
   * Completes the job of a lease and, when that ended the lease, claims up to {@code limit} jobs for the same
   * collector, as one store call (one transaction and one commit on PostgreSQL): the loop of a collector that
   * runs one job at a time. A stale lease claims nothing ({@link CompleteAndClaimResult#claim()} is empty);
   * see {@link QueueStore#completeAndClaim}.
   *
   * @param lease the lease, held by the collector that claims next
   * @param limit the most jobs to claim, at least 1
   * @return the completion's result and, when it ended the lease, the claim's
   */
  public CompleteAndClaimResult completeAndClaim(Lease lease, int limit) {
    present(lease, "lease");
    return store.completeAndClaim(LeaseRef.of(lease), null, claimCommand(lease.collector(), limit));
  }

  /**
   * {@link #completeAndClaim(Lease, int)} with the job's result, kept in the same step exactly when this
   * lease's completion succeeds.
   *
   * @param lease the lease, held by the collector that claims next
   * @param result the job's result
   * @param limit the most jobs to claim, at least 1
   * @return the completion's result and, when it ended the lease, the claim's
   */
  public CompleteAndClaimResult completeAndClaim(Lease lease, ResultPayload result, int limit) {
    present(lease, "lease");
    return store.completeAndClaim(LeaseRef.of(lease), present(result, "result"),
        claimCommand(lease.collector(), limit));
  }

  /** A claim of up to {@code limit} jobs for a collector under the queue's settings. */
  private ClaimCommand claimCommand(String collector, int limit) {
    return ClaimCommand.builder().collector(Checks.token(collector, "collector name"))
        .leaseDuration(settings.leaseDuration())
        .collectorTimeout(settings.collectorTimeout()).maxCrashRescues(settings.maxCrashRescues()).limit(limit)
        .build();
  }

  /**
   * The result kept for a job.
   *
   * @param job the job
   * @return the result, if the job succeeded with one
   */
  public Optional<JobResult> result(JobId job) {
    return store.result(present(job, "job id"));
  }

  /**
   * The results kept for the jobs of a request (its own and those backfilled to it), by job id.
   *
   * @param request the request
   * @return the results
   */
  public List<JobResult> results(RequestId request) {
    return store.results(present(request, "request id"));
  }

  /**
   * Completes the jobs of several leases in one store call (one round trip and one commit on a database
   * store when the leases are live): a collector that claimed a batch and ran it reports it at once. Each
   * lease is fenced on its own, as {@link #complete(Lease)} fences it; the results, one per lease in the
   * given order, are those completing them one by one would give, so a stale, expired or cancelled lease
   * affects only its own result.
   *
   * @param leases the leases, each job at most once; empty does nothing
   * @return one result per lease, in order
   * @throws InvalidQueueInputException when the list or a lease is missing, or two leases name one job
   */
  public List<LeaseResult> completeAll(List<Lease> leases) {
    List<LeaseRef> refs = refs(leases);
    if (refs.isEmpty()) {
      return List.of();
    }
    return store.completeAll(LeaseRef.checkedBatch(refs));
  }

  /**
   * Completes the jobs of several leases, each with its result, in one store call: item {@code i} is
   * completed as {@code complete(leases.get(i), results.get(i))} would complete it.
   *
   * @param leases the leases, each job at most once; empty does nothing
   * @param results one result per lease, in the same order
   * @return one result per lease, in order
   * @throws InvalidQueueInputException when a list or an item is missing, two leases name one job, or the
   *     sizes differ
   */
  public List<LeaseResult> completeAll(List<Lease> leases, List<ResultPayload> results) {
    List<LeaseRef> refs = refs(leases);
    List<ResultPayload> payloads = ResultPayload.checkedBatch(results, refs.size());
    if (refs.isEmpty()) {
      return List.of();
    }
    return store.completeAll(LeaseRef.checkedBatch(refs), payloads);
  }

  private static List<LeaseRef> refs(@Nullable List<Lease> leases) {
    if (leases == null) {
      throw new InvalidQueueInputException("the leases to complete are missing; expected a list (possibly empty)");
    }
    List<LeaseRef> refs = new ArrayList<>(leases.size());
    for (int i = 0; i < leases.size(); i++) {
      Lease lease = leases.get(i);
      if (lease == null) {
        throw new InvalidQueueInputException("lease " + i + " of " + leases.size() + " to complete is missing");
      }
      refs.add(LeaseRef.of(lease));
    }
    return refs;
  }

  /**
   * Reports a failure of the job of a lease.
   *
   * @param lease the lease
   * @param failure transient or permanent, with detail
   * @return what happened
   */
  public LeaseResult fail(Lease lease, Failure failure) {
    present(lease, "lease");
    present(failure, "failure");
    return store.fail(LeaseRef.of(lease), failure, settings.maxTransientRetries());
  }

  /**
   * Hands the job of a lease back unfinished (a collector shutting down between jobs).
   *
   * @param lease the lease
   * @return what happened
   */
  public LeaseResult release(Lease lease) {
    present(lease, "lease");
    return store.release(LeaseRef.of(lease));
  }

  private static <T> T present(@Nullable T value, String what) {
    if (value == null) {
      throw new InvalidQueueInputException(what + " is missing");
    }
    return value;
  }

  private static String token(@Nullable String value, String what) {
    return QueueNames.check(value, what);
  }
}

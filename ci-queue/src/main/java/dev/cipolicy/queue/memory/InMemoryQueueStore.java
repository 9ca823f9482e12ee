package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.CiRunKey;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.QueueNames;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.placement.PoolClaimer;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.JobRetry;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.PurgeResult;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import dev.cipolicy.queue.spi.RetireResult;
import dev.cipolicy.queue.spi.RetryResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The embedded {@link QueueStore}: all state in memory, every operation atomic under one monitor, so it
 * is correct under any number of site and collector threads in one JVM. Claims cost O(log n) in the
 * queued jobs of the collector's tag (plus the pool's collectors with requeued jobs); completion checks
 * are O(1) through per-request counters; open requests are listed in O(n) from an array.
 *
 * <p>It keeps every request, job and result for the life of the store (until the request is purged), and every instant to the microsecond,
 * as every store does ({@link QueueStore#truncate}). Time comes from the clock it is given when it is built,
 * read once per operation under the monitor: it is the one clock of every engine that shares this store.
 * It owns no thread.
 */
public final class InMemoryQueueStore implements QueueStore, OperatorAudit {

  private final Object lock = new Object();

  private final RequestRows rows = new RequestRows();

  /** Job rows by id: job {@code i} is at index {@code i - 1} (this store's ids are dense). */
  private final ArrayList<JobRow> jobs = new ArrayList<>();
  private final Map<String, Pool> pools = new HashMap<>();
  private final Collectors collectors = new Collectors(pools);
  /** Submission, start, completion and cancellation of requests, and the jobs they create. */
  private final RequestLifecycle requests = new RequestLifecycle(rows, jobs, pools);

  /** The results by job id. */
  private final Map<Long, JobResult> results = new HashMap<>();

  private final InstantSource clock;
  private long lastToken;
  private FleetShares shares = FleetShares.none();
  /** The paused pools. */
  private final OperatorRows operators = new OperatorRows();
  /** The operators' audit, at this store's now. */
  private final InMemoryOperatorAudit audit;

  /**
   * Creates an empty store on a clock.
   *
   * @param clock the store's clock, the only source of time of every operation (for example
   *     {@code Clock.systemUTC()} in a host, a settable clock in a test)
   * @throws InvalidQueueInputException when the clock is missing
   */
  public InMemoryQueueStore(InstantSource clock) {
    if (clock == null) {
      throw new InvalidQueueInputException("the in-memory queue store needs a clock; got none");
    }
    this.clock = clock;
    this.audit = new InMemoryOperatorAudit(this::now);
  }

  @Override
  public Instant now() {
    return QueueStore.truncate(clock.instant());
  }

  // ---------------------------------------------------------------------------------------------- requests

  @Override
  public SubmitResult submit(NewRequest request) {
    synchronized (lock) {
      return requests.submit(request, now());
    }
  }

  @Override
  public Optional<Request> ciRun(CiRunKey key) {
    Checks.present(key, "CI run key");
    synchronized (lock) {
      RequestRow row = rows.ciRun(key);
      return row == null ? Optional.empty() : Optional.of(row.request);
    }
  }

  @Override
  public AttachResult attachArtifacts(RequestId id, String sha, String parentSha) {
    QueueNames.check(sha, "try SHA");
    QueueNames.check(parentSha, "try parent SHA");
    synchronized (lock) {
      RequestRow row = rows.get(id.value());
      if (row == null) {
        return new AttachResult(AttachResult.Status.NOT_FOUND, Optional.empty());
      }
      if (row.request.state() != RequestState.WAITING_FOR_ARTIFACTS) {
        return new AttachResult(AttachResult.Status.NOT_WAITING, Optional.of(row.request));
      }
      if (rows.byTag(sha) != null) {
        return new AttachResult(AttachResult.Status.DUPLICATE_TAG, Optional.of(row.request));
      }
      row.request = row.request.withArtifacts(sha, parentSha);
      rows.tag(sha, row);
      return new AttachResult(AttachResult.Status.ATTACHED, Optional.of(row.request));
    }
  }

  @Override
  public Optional<Request> request(RequestId id) {
    synchronized (lock) {
      RequestRow row = rows.get(id.value());
      return row == null ? Optional.empty() : Optional.of(row.request);
    }
  }

  @Override
  public Optional<Request> requestByTag(String tag) {
    QueueNames.check(tag, "tag");
    synchronized (lock) {
      RequestRow row = rows.byTag(tag);
      return row == null ? Optional.empty() : Optional.of(row.request);
    }
  }

  @Override
  public Set<String> knownTags(Collection<String> tags) {
    if (tags == null) {
      throw new InvalidQueueInputException("knownTags needs a collection of tags; got none");
    }
    for (String tag : tags) {
      QueueNames.check(tag, "tag");
    }
    synchronized (lock) {
      return rows.knownTags(tags);
    }
  }

  @Override
  public List<Request> openRequests() {
    synchronized (lock) {
      return rows.open();
    }
  }

  @Override
  public List<Request> inProgressRequests() {
    synchronized (lock) {
      return rows.inProgress();
    }
  }

  @Override
  public StartResult startRequest(StartCommand command) {
    synchronized (lock) {
      return requests.start(command, this::now);
    }
  }

  @Override
  public CompletionResult completeIfDone(RequestId id) {
    synchronized (lock) {
      return requests.completeIfDone(id, now());
    }
  }

  @Override
  public CancelResult cancel(RequestId id, String reason) {
    QueueNames.text(reason, "cancellation reason");
    synchronized (lock) {
      return requests.cancel(id, reason, now());
    }
  }

  // -------------------------------------------------------------------------------------------------- jobs

  @Override
  public ClaimResult claim(ClaimCommand command) {
    synchronized (lock) {
      Instant now = now();
      CollectorRow collector = collectors.get(command.collector(), now);
      if (collector == null) {
        return new ClaimResult(ClaimResult.Status.UNKNOWN_COLLECTOR, List.of());
      }
      if (!collector.active) {
        return new ClaimResult(ClaimResult.Status.INACTIVE_COLLECTOR, List.of());
      }
      collector.heartbeat(now);
      Pool pool = pools.get(collector.tag); // a collector with devices has its pool from its registration on
      if (pool == null) {
        return new ClaimResult(ClaimResult.Status.OK, List.of());
      }
      if (operators.paused(collector.tag)) {
        pool.expire(now, command.maxCrashRescues(), null);
        return new ClaimResult(ClaimResult.Status.OK, List.of());
      }
      pool.expire(now, command.maxCrashRescues(), null);
      collectors.takeAtClaim(collector, now);
      Instant expiry = QueueStore.truncate(now.plus(command.leaseDuration()));
      boolean gpu = !collector.usable.isEmpty() && !pool.gpuQueues.isEmpty();
      boolean capped = shares.covers(collector.tag);
      List<Claim> claims = new ArrayList<>(Math.min(command.limit(), 16));
      if (gpu || capped) {
        MemoryPoolTransaction tx = new MemoryPoolTransaction(this, pool, collector, now,
            command.collectorTimeout(), shares);
        if (gpu) {
          claims.addAll(PoolClaimer.claimGpu(tx, collector.name, command.limit(), expiry));
        }
        if (capped) {
          PoolClaimer.claimAdmitted(tx, command.limit(), expiry, claims);
        }
        tx.putBack();
        if (capped) {
          return new ClaimResult(ClaimResult.Status.OK, claims);
        }
      } else if (command.limit() == 1) {
        JobRow row = pool.next(collector.name, now, command.collectorTimeout(), collectors.byName);
        return new ClaimResult(ClaimResult.Status.OK, row == null ? List.of()
            : List.of(pool.lease(row, ++lastToken, collector.name, now, expiry, List.of())));
      }
      while (claims.size() < command.limit()) {
        JobRow row = pool.next(collector.name, now, command.collectorTimeout(), collectors.byName);
        if (row == null) {
          break;
        }
        claims.add(pool.lease(row, ++lastToken, collector.name, now, expiry, List.of()));
      }
      return new ClaimResult(ClaimResult.Status.OK, claims);
    }
  }

  /**
   * Runs {@code action} on a job under the store's lock once the lease fence passed: a wrong attempt or
   * token (or an expired lease) changes nothing and says so, and a job flagged for cancellation ends its
   * lease as cancelled instead. The action gets the store's {@code now}, read under the lock.
   */
  private LeaseResult fenced(LeaseRef lease, java.util.function.BiFunction<JobRow, Instant, LeaseResult> action) {
    synchronized (lock) {
      Instant now = now();
      JobRow row = row(lease.jobId());
      if (row == null) {
        return new LeaseResult(LeaseStatus.NOT_FOUND, Optional.empty());
      }
      LeaseResult refused = row.fence(lease, now);
      if (refused != null) {
        return refused;
      }
      Job before = row.job;
      LeaseResult result = row.job.cancelRequested() ? cancelFlagged(row, now) : action.apply(row, now);
      row.attemptEnded(before, now);
      return result;
    }
  }

  @Override
  public LeaseResult heartbeat(LeaseRef lease, Duration leaseDuration) {
    return fenced(lease, (row, now) -> {
      Instant expiry = QueueStore.truncate(now.plus(leaseDuration));
      row.job = row.job.renewed(expiry);
      row.leaseExpiry = expiry;
      row.pool.leases.update(row);
      holderHeartbeat(row.job.lease().orElseThrow(), now);
      return new LeaseResult(LeaseStatus.OK, Optional.of(row.job));
    });
  }

  @Override
  public LeaseResult complete(LeaseRef lease, @Nullable ResultPayload result) {
    return fenced(lease, (row, now) -> {
      Lease ended = endLease(row, now);
      row.finish(row.job.succeeded(now));
      if (result != null) {
        results.put(row.id, JobResult.builder().jobId(row.job.id()).requestId(row.job.requestId())
            .attempt(ended.attempt()).collector(ended.collector()).storedAt(now).payload(result).build());
      }
      return new LeaseResult(LeaseStatus.OK, Optional.of(row.job));
    });
  }

  /** Completes the whole batch under one acquisition of the store's monitor: atomic as a whole. */
  @Override
  public List<LeaseResult> completeAll(List<LeaseRef> leases) {
    List<LeaseRef> batch = LeaseRef.checkedBatch(leases);
    List<LeaseResult> out = new ArrayList<>(batch.size());
    synchronized (lock) {
      for (LeaseRef ref : batch) {
        out.add(complete(ref, null));
      }
    }
    return List.copyOf(out);
  }

  /** Completes the whole batch with its results under one acquisition of the store's monitor. */
  @Override
  public List<LeaseResult> completeAll(List<LeaseRef> leases, List<ResultPayload> payloads) {
    List<LeaseRef> batch = LeaseRef.checkedBatch(leases);
    List<ResultPayload> checked = ResultPayload.checkedBatch(payloads, batch.size());
    List<LeaseResult> out = new ArrayList<>(batch.size());
    synchronized (lock) {
      for (int i = 0; i < batch.size(); i++) {
        out.add(complete(batch.get(i), checked.get(i)));
      }
    }
    return List.copyOf(out);
  }

  @Override
  public Optional<JobResult> result(JobId id) {
    synchronized (lock) {
      return Optional.ofNullable(results.get(id.value()));
    }
  }

  @Override
  public List<JobResult> results(RequestId requestId) {
    synchronized (lock) {
      RequestRow row = rows.get(requestId.value());
      if (row == null) {
        return List.of();
      }
      List<JobResult> out = new ArrayList<>();
      for (JobRow job : row.jobs) {
        JobResult result = results.get(job.id);
        if (result != null) {
          out.add(result);
        }
      }
      return out;
    }
  }

  @Override
  public LeaseResult fail(LeaseRef lease, Failure failure, int maxTransientRetries) {
    return fenced(lease, (row, now) -> {
      Lease ended = endLease(row, now);
      Job current = row.job;
      if (failure.kind() == Failure.Kind.PERMANENT) {
        row.finish(current.failed(JobFailure.permanent(ended.collector(), failure.detail(), now)));
      } else if (current.transientRetries() < maxTransientRetries) {
        row.job = current.retriedAfterTransientFailure(failure.detail());
        Pool.enqueue(row);
      } else {
        row.finish(current.failed(JobFailure.transientBudgetExhausted(ended.collector(),
            current.transientRetries(), failure.detail(), now)));
      }
      return new LeaseResult(LeaseStatus.OK, Optional.of(row.job));
    });
  }

  @Override
  public LeaseResult release(LeaseRef lease) {
    return fenced(lease, (row, now) -> {
      endLease(row, now);
      row.job = row.job.released();
      Pool.enqueue(row);
      return new LeaseResult(LeaseStatus.OK, Optional.of(row.job));
    });
  }

  /** Null when the row's job is leased under this live lease, else the refusal to return. */
  private LeaseResult cancelFlagged(JobRow row, Instant now) {
    endLease(row, now);
    row.finish(row.job.cancelled(now));
    return new LeaseResult(LeaseStatus.CANCELLED, Optional.of(row.job));
  }

  /** Takes the row out of its lease heap and refreshes the holder's heartbeat; returns the ended lease. */
  private Lease endLease(JobRow row, Instant now) {
    Lease lease = row.job.lease().orElseThrow();
    row.pool.endLease(row);
    holderHeartbeat(lease, now);
    return lease;
  }

  private void holderHeartbeat(Lease lease, Instant now) {
    CollectorRow holder = collectors.row(lease.collector());
    if (holder != null) {
      holder.heartbeat(now);
    }
  }

  @Override
  public ExpiryResult expireLeases(int maxCrashRescues) {
    synchronized (lock) {
      Instant now = now();
      List<List<Job>> changes = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      for (Pool pool : pools.values()) {
        pool.expire(now, maxCrashRescues, changes);
      }
      Comparator<Job> byId = Comparator.comparing(Job::id);
      changes.forEach(list -> list.sort(byId));
      return ExpiryResult.builder().rescued(changes.get(0)).failed(changes.get(1)).cancelled(changes.get(2))
          .build();
    }
  }

  @Override
  public PoolView pool(String tag, Duration collectorTimeout) {
    QueueNames.check(tag, "collector tag");
    synchronized (lock) {
      Instant now = now();
      PoolView view = Pool.view(tag, pools.get(tag), jobs, now, collectors.live(tag, now, collectorTimeout),
          collectorTimeout, shares);
      return operators.paused(tag) ? view.paused() : view;
    }
  }

  @Override
  public RetryResult retryJob(JobId id, int maxInProgress) {
    Checks.present(id, "job id");
    synchronized (lock) {
      JobRow row = row(id);
      if (row == null) {
        return RetryResult.unchanged(RetryResult.Status.NOT_FOUND, null, null);
      }
      RequestRow request = row.request;
      RequestRow openOfPr = request.request.pr().isEmpty() ? null
          : rows.openWithPr(request.request.kind(), request.request.pr().getAsLong());
      RetryResult result = JobRetry.decide(row.job, request.request, maxInProgress, rows.cappedInProgress(),
          openOfPr != null && openOfPr != request);
      if (result.status() == RetryResult.Status.RETRIED) {
        row.unfinish(result.job().orElseThrow());
        Pool.enqueue(row);
        if (result.reopened()) {
          rows.reopen(request, result.request().orElseThrow());
        }
      }
      return result;
    }
  }

  @Override
  public boolean setPoolPaused(String tag, boolean pause) {
    QueueNames.check(tag, "pool");
    synchronized (lock) {
      return operators.setPaused(tag, pause);
    }
  }

  @Override
  public Set<String> pausedPools() {
    synchronized (lock) {
      return operators.pausedPools();
    }
  }

  @Override
  public OperatorAction recordAction(String actor, String action, String target, String result) {
    return audit.recordAction(actor, action, target, result);
  }

  @Override
  public List<OperatorAction> operatorActions(int limit) {
    return audit.operatorActions(limit);
  }

  @Override
  public void setShares(FleetShares fleetShares) {
    if (fleetShares == null) {
      throw new InvalidQueueInputException("setShares needs fleet shares; got none (FleetShares.none() caps nothing)");
    }
    synchronized (lock) {
      shares = fleetShares;
    }
  }

  @Override
  public FleetShares shares() {
    synchronized (lock) {
      return shares;
    }
  }

  @Override
  public Optional<Job> job(JobId id) {
    synchronized (lock) {
      JobRow row = row(id);
      return row == null ? Optional.empty() : Optional.of(row.job);
    }
  }

  @Override
  public List<JobAttempt> attempts(JobId id) {
    Checks.present(id, "job id");
    synchronized (lock) {
      JobRow row = row(id);
      return row == null ? List.of() : List.copyOf(row.attempts);
    }
  }

  @Override
  public List<Job> jobs(RequestId requestId) {
    synchronized (lock) {
      RequestRow row = rows.get(requestId.value());
      if (row == null) {
        return List.of();
      }
      List<Job> out = new ArrayList<>(row.jobs.size());
      for (JobRow job : row.jobs) {
        out.add(job.job);
      }
      return out;
    }
  }

  // ---------------------------------------------------------------------------------------------- collectors

  @Override
  public RegisterResult registerCollector(String name, String tag, boolean active) {
    return registerCollector(name, tag, active, Devices.none());
  }

  @Override
  public RegisterResult registerCollector(String name, String tag, boolean active, Devices devices) {
    if (devices == null) {
      throw new InvalidQueueInputException("collector " + name + " has no device inventory; expected one,"
          + " possibly empty");
    }
    QueueNames.check(name, "collector name");
    QueueNames.check(tag, "collector tag");
    synchronized (lock) {
      return collectors.register(name, tag, active, devices, now());
    }
  }

  @Override
  public CollectorResult collectorHeartbeat(String name) {
    QueueNames.check(name, "collector name");
    synchronized (lock) {
      return collectors.heartbeat(name, now());
    }
  }

  @Override
  public CollectorResult setCollectorActive(String name, boolean active) {
    QueueNames.check(name, "collector name");
    synchronized (lock) {
      return collectors.setActive(name, active, now());
    }
  }

  @Override
  public RetireResult retireCollector(String name) {
    QueueNames.check(name, "collector name");
    synchronized (lock) {
      return collectors.retire(name, now());
    }
  }

  @Override
  public Optional<Collector> collector(String name) {
    QueueNames.check(name, "collector name");
    synchronized (lock) {
      return collectors.collector(name, now());
    }
  }

  @Override
  public List<Collector> collectors() {
    synchronized (lock) {
      return collectors.all(now());
    }
  }

  /** A fresh lease token (under the lock). */
  long nextToken() {
    return ++lastToken;
  }

  /** Removes and returns the next job without GPUs the collector may claim in the pool, or null. */
  @Nullable JobRow next(Pool pool, String collector, Instant now, Duration timeout) {
    return pool.next(collector, now, timeout, collectors.byName);
  }

  @Nullable JobRow row(JobId id) {
    long index = id.value() - 1;
    if (index >= jobs.size()) {
      return null;
    }
    JobRow row = jobs.get((int) index);
    return row.purged ? null : row;
  }

  // ------------------------------------------------------------------------------------------------- logs

  @Override
  public LeaseStatus appendLog(LeaseRef lease, List<LogChunk> chunks) {
    Checks.present(lease, "lease");
    List<LogChunk> checked = LogWindow.checkAppend(chunks);
    synchronized (lock) {
      JobRow row = row(lease.jobId());
      return row == null ? LeaseStatus.NOT_FOUND : row.appendLog(lease, checked, now());
    }
  }

  @Override
  public Optional<JobLogView> log(JobId id, int attempt, long from) {
    LogWindow.checkRead(id, attempt, from);
    synchronized (lock) {
      JobRow row = row(id);
      return row == null ? Optional.empty() : row.log(attempt, from, now());
    }
  }

  @Override
  public HistoryPage history(int limit, @Nullable HistoryCursor after) {
    HistoryPage.checkedLimit(limit);
    synchronized (lock) {
      return rows.history(limit, after);
    }
  }

  @Override
  public PurgeResult purge(String tag) {
    QueueNames.check(tag, "tag");
    synchronized (lock) {
      RequestRow row = rows.byTag(tag);
      if (row == null) {
        return PurgeResult.unchanged(PurgeResult.Status.NOT_FOUND, Optional.empty());
      }
      Optional<Request> request = Optional.of(row.request);
      if (row.request.state().isOpen()) {
        return PurgeResult.unchanged(PurgeResult.Status.REQUEST_OPEN, request);
      }
      for (JobRow job : row.jobs) {
        if (job.job.state() == JobState.LEASED) {
          return PurgeResult.unchanged(PurgeResult.Status.JOB_LEASED, request);
        }
      }
      Instant now = now();
      int removedResults = 0;
      for (JobRow job : row.jobs) {
        if (job.job.state() == JobState.QUEUED) {
          job.pool.ledger.unqueued(job.job.spec());
          job.job = job.job.cancelled(now); // claim queues skip rows that are not queued
        }
        job.purged = true;
        job.logs.clear();
        job.attempts.clear();
        if (results.remove(job.id) != null) {
          removedResults++;
        }
      }
      rows.remove(row);
      return PurgeResult.builder().status(PurgeResult.Status.PURGED).request(request).jobsRemoved(row.jobs.size())
          .resultsRemoved(removedResults).build();
    }
  }
}

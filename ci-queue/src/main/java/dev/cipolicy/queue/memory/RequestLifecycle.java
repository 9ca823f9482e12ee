package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.Backfill;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What happens to the requests of {@link InMemoryQueueStore} from submission to their end, and the jobs they
 * create: submission (a CI run attached to its key, or created superseded, or superseding the older runs of its
 * group), the start with its parent's backfill, completion once no required job is pending, and cancellation. It
 * holds the request and job id counters and adds each job it creates to the store's job table and its pool's claim
 * queue. Not thread-safe: the store calls it under its lock, with the instant it read.
 */
final class RequestLifecycle {

  private final RequestRows rows;
  /** The store's job table: job {@code i} at index {@code i - 1}. */
  private final List<JobRow> jobs;
  private final Map<String, Pool> pools;
  private long lastRequestId;
  private long lastJobId;

  RequestLifecycle(RequestRows rows, List<JobRow> jobs, Map<String, Pool> pools) {
    this.rows = rows;
    this.jobs = jobs;
    this.pools = pools;
  }

  /** Submits a request at {@code now}. */
  SubmitResult submit(NewRequest request, Instant now) {
    if (request.kind() == RequestKind.CI_RUN) {
      return submitCiRun(request, now);
    }
    if (request.tag().isPresent()) {
      RequestRow existing = rows.byTag(request.tag().get());
      if (existing != null) {
        return new SubmitResult(SubmitResult.Status.DUPLICATE_TAG, existing.request);
      }
    }
    if (request.pr().isPresent()) {
      RequestRow existing = rows.openWithPr(request.kind(), request.pr().getAsLong());
      if (existing != null) {
        return new SubmitResult(SubmitResult.Status.DUPLICATE_OPEN_PR, existing.request);
      }
    }
    RequestRow row = new RequestRow(Request.created(RequestId.of(++lastRequestId), request, now));
    rows.add(row);
    return new SubmitResult(SubmitResult.Status.CREATED, row.request);
  }

  private SubmitResult submitCiRun(NewRequest request, Instant now) {
    CiRun run = request.ciRun().orElseThrow();
    RequestRow existing = rows.ciRun(run.key());
    if (existing != null) {
      return new SubmitResult(SubmitResult.Status.ATTACHED, existing.request);
    }
    RequestRow newest = rows.newestSuperseding(run);
    RequestRow row = new RequestRow(Request.created(RequestId.of(++lastRequestId), request, now));
    if (newest != null) {
      row.request = row.request.superseded(newest.request, now);
      row.closed = true;
      rows.add(row);
      return new SubmitResult(SubmitResult.Status.SUPERSEDED, row.request);
    }
    List<RequestRow> older = rows.supersededBy(run);
    rows.add(row);
    rows.started(row);
    for (JobSpec spec : request.jobs()) {
      createJob(row, spec, now);
    }
    List<Request> superseded = new ArrayList<>();
    for (RequestRow o : older) {
      cancelRow(o, o.request.superseded(row.request, now), now);
      superseded.add(o.request);
    }
    return new SubmitResult(SubmitResult.Status.CREATED, row.request, superseded);
  }

  /** Starts a request; reads the clock only once the request starts (a refused start changes nothing). */
  StartResult start(StartCommand command, Supplier<Instant> clock) {
    RequestRow row = rows.get(command.requestId().value());
    if (row == null) {
      return StartResult.unchanged(StartResult.Status.NOT_FOUND, Optional.empty(), rows.cappedInProgress());
    }
    if (row.request.state() != RequestState.ARTIFACTS_READY) {
      return StartResult.unchanged(StartResult.Status.NOT_READY, Optional.of(row.request), rows.cappedInProgress());
    }
    if (rows.cappedInProgress() >= command.maxInProgress()) {
      return StartResult.unchanged(StartResult.Status.CAP_REACHED, Optional.of(row.request), rows.cappedInProgress());
    }
    Instant now = clock.get();
    List<Job> created = new ArrayList<>(command.jobs().size());
    for (JobSpec spec : command.jobs()) {
      JobRow job = createJob(row, spec, now);
      if (job != null) {
        created.add(job.job);
      }
    }
    Backfill backfill = backfill(row, command, now);
    row.request = row.request.started(now, backfill.status() == Backfill.Status.ENQUEUED
        ? backfill.parent().orElseThrow() : null);
    rows.started(row);
    return StartResult.builder().status(StartResult.Status.STARTED).request(row.request).jobs(created)
        .backfill(backfill).inProgress(rows.cappedInProgress()).build();
  }

  private Backfill backfill(RequestRow row, StartCommand command, Instant now) {
    if (!command.backfillParent()) {
      return Backfill.none(Backfill.Status.NOT_REQUESTED, Optional.empty());
    }
    Optional<String> parentSha = row.request.parentSha();
    if (parentSha.isEmpty()) {
      return Backfill.none(Backfill.Status.NO_PARENT, Optional.empty());
    }
    RequestRow parent = rows.byTag(parentSha.get());
    if (parent == null) {
      return Backfill.none(Backfill.Status.PARENT_UNKNOWN, Optional.empty());
    }
    Optional<RequestId> parentId = Optional.of(parent.request.id());
    Optional<Backfill> refused = Backfill.refusedBy(parent.request);
    if (refused.isPresent()) {
      return refused.get();
    }
    List<Job> created = new ArrayList<>();
    int existing = 0;
    for (JobSpec spec : command.jobs()) {
      JobRow job = createJob(parent, spec, now);
      if (job == null) {
        existing++;
      } else {
        created.add(job.job);
      }
    }
    return Backfill.builder().status(Backfill.Status.ENQUEUED).parent(parentId).created(created).existing(existing)
        .build();
  }

  /** Creates a queued job unless the request has one with the same group and tag; returns null then. */
  private @Nullable JobRow createJob(RequestRow request, JobSpec spec, Instant now) {
    RequestRow.JobKey key = new RequestRow.JobKey(spec.benchmarkGroup(), spec.collectorTag());
    if (request.jobsByKey.containsKey(key)) {
      return null;
    }
    Pool pool = pools.computeIfAbsent(spec.collectorTag(), Pool::new);
    JobRow row = new JobRow(Job.created(JobId.of(++lastJobId), request.request.id(), spec, now), request, pool);
    jobs.add(row);
    request.jobs.add(row);
    request.jobsByKey.put(key, row);
    if (!spec.optional()) {
      request.requiredPending++;
    }
    pool.ledger.queued(spec);
    if (spec.gpus() > 0) {
      pool.gpuQueues.computeIfAbsent(spec.gpus(), n -> new ClaimQueue()).add(row);
    } else {
      pool.free.add(row);
    }
    return row;
  }

  /** Completes a request in progress at {@code now} once none of its (and its parent's) required jobs is pending. */
  CompletionResult completeIfDone(RequestId id, Instant now) {
    RequestRow row = rows.get(id.value());
    if (row == null) {
      return new CompletionResult(CompletionResult.Status.NOT_FOUND, Optional.empty(), 0);
    }
    if (row.request.state() != RequestState.IN_PROGRESS) {
      return new CompletionResult(CompletionResult.Status.NOT_IN_PROGRESS, Optional.of(row.request), 0);
    }
    int pending = row.requiredPending;
    if (row.request.parentRequest().isPresent()) {
      // A parent this store does not hold has no pending jobs (as in the PostgreSQL store).
      RequestRow parent = rows.get(row.request.parentRequest().get().value());
      if (parent != null) {
        pending += parent.requiredPending;
      }
    }
    if (pending > 0) {
      return new CompletionResult(CompletionResult.Status.NOT_DONE, Optional.of(row.request), pending);
    }
    Outcome outcome = Outcome.of(row.requiredSucceeded, row.requiredFailed, row.anyFailed);
    row.request = row.request.completed(outcome, now);
    rows.close(row);
    rows.completed(row);
    return new CompletionResult(CompletionResult.Status.COMPLETED, Optional.of(row.request), 0);
  }

  /** Cancels a request at {@code now} unless it has finished. */
  CancelResult cancel(RequestId id, String reason, Instant now) {
    RequestRow row = rows.get(id.value());
    if (row == null) {
      return CancelResult.unchanged(CancelResult.Status.NOT_FOUND, Optional.empty());
    }
    if (row.request.state().isTerminal()) {
      return CancelResult.unchanged(CancelResult.Status.ALREADY_FINISHED, Optional.of(row.request));
    }
    return cancelRow(row, row.request.cancelled(reason, now), now);
  }

  /** Cancels an open request: its queued jobs cancelled, its leased jobs flagged, the request closed. */
  private CancelResult cancelRow(RequestRow row, Request cancelledRequest, Instant now) {
    int cancelled = 0;
    int flagged = 0;
    for (JobRow job : row.jobs) {
      if (job.job.state() == JobState.QUEUED) {
        // The row stays in its claim queue; claims skip terminal rows.
        job.pool.ledger.unqueued(job.job.spec());
        job.finish(job.job.cancelled(now));
        cancelled++;
      } else if (job.job.state() == JobState.LEASED && !job.job.cancelRequested()) {
        job.job = job.job.flaggedForCancellation();
        flagged++;
      }
    }
    row.request = cancelledRequest;
    rows.close(row);
    return CancelResult.builder().status(CancelResult.Status.CANCELLED).request(row.request)
        .queuedJobsCancelled(cancelled).leasedJobsFlagged(flagged).build();
  }
}

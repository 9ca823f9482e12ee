package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.RetryResult;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What operators set in the in-memory store: the paused pools and the audit of their actions. Not thread-safe: the
 * store calls it under its lock.
 */
final class OperatorRows {
  /** The paused pools. */
  private final Set<String> paused = new HashSet<>();
  /** The operator actions, in recording order (id {@code i} at index {@code i - 1}). */
  private final ArrayList<OperatorAction> actions = new ArrayList<>();

  boolean paused(String tag) {
    return paused.contains(tag);
  }

  /** Pauses or resumes a pool; whether that changed anything. */
  boolean setPaused(String tag, boolean pause) {
    return pause ? paused.add(tag) : paused.remove(tag);
  }

  Set<String> pausedPools() {
    return Set.copyOf(paused);
  }

  /** Records an action (its texts checked by the caller before the lock) at the store's instant. */
  OperatorAction record(Instant at, String actor, String action, String target, String result) {
    OperatorAction recorded = new OperatorAction(actions.size() + 1L, at, actor, action, target, result);
    actions.add(recorded);
    return recorded;
  }

  /** Refuses a limit of actions outside 1 to {@link OperatorAudit#MAX_LIMIT}. */
  static void checkLimit(int limit) {
    if (limit < 1 || limit > OperatorAudit.MAX_LIMIT) {
      throw new InvalidQueueInputException("operator actions limit " + limit + " is out of range; expected 1 to "
          + OperatorAudit.MAX_LIMIT);
    }
  }

  /** The newest actions first, at most {@code limit}. */
  List<OperatorAction> newest(int limit) {
    List<OperatorAction> out = new ArrayList<>(Math.min(limit, actions.size()));
    for (int i = actions.size() - 1; i >= 0 && out.size() < limit; i--) {
      out.add(actions.get(i));
    }
    return out;
  }

  /**
   * An operator's retry of a failed or cancelled job: queued again with fresh budgets, its completed request
   * reopened, unless the request was cancelled, reopening it would pass the in-progress cap, or its pull request
   * has a newer open request.
   */
  static RetryResult retry(JobRow row, RequestRows rows, int maxInProgress) {
    RequestRow request = row.request;
    Job job = row.job;
    if (job.state() != JobState.FAILED && job.state() != JobState.CANCELLED) {
      return RetryResult.unchanged(RetryResult.Status.NOT_RETRYABLE, job, request.request);
    }
    RequestState state = request.request.state();
    if (state == RequestState.CANCELLED) {
      return RetryResult.unchanged(RetryResult.Status.REQUEST_CANCELLED, job, request.request);
    }
    boolean reopen = state == RequestState.COMPLETED;
    if (reopen && request.request.kind().isCapped() && rows.cappedInProgress() >= maxInProgress) {
      return RetryResult.unchanged(RetryResult.Status.CAP_REACHED, job, request.request);
    }
    if (reopen && request.request.pr().isPresent()
        && rows.openWithPr(request.request.kind(), request.request.pr().getAsLong()) != null) {
      return RetryResult.unchanged(RetryResult.Status.PR_HAS_OPEN_REQUEST, job, request.request);
    }
    row.unfinish(job.retried());
    Pool.enqueue(row);
    if (reopen) {
      rows.reopen(request, request.request.reopened());
    }
    return new RetryResult(RetryResult.Status.RETRIED, Optional.of(row.job), Optional.of(request.request), reopen);
  }
}

package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import java.util.Optional;

/**
 * The rule of an operator's retry of a job ({@link QueueStore#retryJob}), written once: every store reads the
 * facts it needs (the job, its request, the requests in progress that count against the cap, whether the
 * request's pull request has another open request of its kind) inside its own step, and writes what this function
 * returns: the job queued again and, when the result says {@link RetryResult#reopened()}, the request reopened.
 *
 * <p>In order: only a failed or cancelled job is retried ({@code NOT_RETRYABLE} otherwise); a cancelled request
 * stays cancelled ({@code REQUEST_CANCELLED}); a completed request is reopened, unless it counts against the cap
 * and {@code maxInProgress} requests that count are in progress ({@code CAP_REACHED}), or its pull request has
 * another open request of the same kind ({@code PR_HAS_OPEN_REQUEST}). A retried job gets fresh budgets
 * ({@link Job#retried()}); a reopened request is {@link Request#reopened()}. Refusals change nothing.
 */
public final class JobRetry {

  private JobRetry() {}

  /**
   * Decides a retry.
   *
   * @param job the job, as stored, locked by the store's step
   * @param request the job's request, as stored, locked by the store's step
   * @param maxInProgress the cap of requests in progress
   * @param cappedInProgress how many requests that count against the cap are in progress
   * @param otherOpenOfPr whether the request has a pull request with another open request of the same kind
   * @return the result: when {@code RETRIED}, the job to store (queued again) and the request to store (reopened
   *     when {@link RetryResult#reopened()}); otherwise the job and request as they stand, to store nothing
   */
  public static RetryResult decide(Job job, Request request, int maxInProgress, int cappedInProgress,
      boolean otherOpenOfPr) {
    Checks.present(job, "retried job");
    Checks.present(request, "retried job's request");
    if (job.state() != JobState.FAILED && job.state() != JobState.CANCELLED) {
      return RetryResult.unchanged(RetryResult.Status.NOT_RETRYABLE, job, request);
    }
    if (request.state() == RequestState.CANCELLED) {
      return RetryResult.unchanged(RetryResult.Status.REQUEST_CANCELLED, job, request);
    }
    boolean reopen = request.state() == RequestState.COMPLETED;
    if (reopen && request.kind().isCapped() && cappedInProgress >= maxInProgress) {
      return RetryResult.unchanged(RetryResult.Status.CAP_REACHED, job, request);
    }
    if (reopen && request.pr().isPresent() && otherOpenOfPr) {
      return RetryResult.unchanged(RetryResult.Status.PR_HAS_OPEN_REQUEST, job, request);
    }
    return new RetryResult(RetryResult.Status.RETRIED, Optional.of(job.retried()),
        Optional.of(reopen ? request.reopened() : request), reopen);
  }
}

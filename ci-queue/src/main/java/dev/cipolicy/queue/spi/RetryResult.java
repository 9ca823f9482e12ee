package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Request;
import java.util.Optional;

/**
 * What {@link QueueStore#retryJob} did: its status, the job (queued again when {@code RETRIED}, as it stands
 * otherwise) and the job's request (in progress when {@code RETRIED}).
 *
 * @param status what happened
 * @param job the job, empty only when it is not found
 * @param request the job's request, empty only when the job is not found
 * @param reopened whether the retry moved the request from completed back to in progress
 */
public record RetryResult(Status status, Optional<Job> job, Optional<Request> request, boolean reopened) {

  /** What retrying did. */
  public enum Status {
    /** The job is queued again with fresh budgets; its request is in progress (reopened if it had completed). */
    RETRIED,
    /** No job has this id. */
    NOT_FOUND,
    /** The job is queued or leased, or it succeeded: only a failed or cancelled job is retried. */
    NOT_RETRYABLE,
    /** The job's request was cancelled: a cancelled request stays cancelled (submit it again instead). */
    REQUEST_CANCELLED,
    /**
     * The job's request completed and reopening it would exceed the cap of requests in progress; nothing
     * changed. CI runs do not count against the cap.
     */
    CAP_REACHED,
    /**
     * The job's request completed and its pull request has another open request of the same kind (at most one
     * is open per PR and kind); nothing changed.
     */
    PR_HAS_OPEN_REQUEST
  }

  /** Checks the components. */
  public RetryResult {
    Checks.present(status, "retry status");
    Checks.present(job, "retried job");
    Checks.present(request, "retried job's request");
    if ((status == Status.NOT_FOUND) == job.isPresent() || job.isPresent() != request.isPresent()) {
      throw new InvalidQueueInputException("a retry result " + status + " has " + (job.isPresent() ? "a" : "no")
          + " job; expected one (with its request) exactly when the job is found");
    }
    if (reopened && status != Status.RETRIED) {
      throw new InvalidQueueInputException("a retry result " + status + " reopened its request; only a retry does");
    }
  }

  /**
   * A result that changed nothing.
   *
   * @param status the status, not {@code RETRIED}
   * @param job the job as it stands, or null when not found
   * @param request its request, or null when not found
   * @return the result
   */
  public static RetryResult unchanged(Status status, @org.jspecify.annotations.Nullable Job job,
      @org.jspecify.annotations.Nullable Request request) {
    return new RetryResult(status, Optional.ofNullable(job), Optional.ofNullable(request), false);
  }
}

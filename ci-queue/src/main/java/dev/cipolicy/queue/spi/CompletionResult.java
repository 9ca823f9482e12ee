package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Request;
import java.util.Optional;

/**
 * What {@link QueueStore#completeIfDone} did: completed the request with its outcome, or nothing because
 * required jobs are pending or it is not in progress.
 *
 * @param status what happened
 * @param request the request after the operation, absent when not found
 * @param pendingJobs the required jobs of the request and its parent that are not terminal yet
 */
public record CompletionResult(Status status, Optional<Request> request, int pendingJobs) {

  /** What completing did. */
  public enum Status {
    /** The request completed now, with an outcome; this caller emits its comparison event. */
    COMPLETED,
    /** Required jobs of the request or of its parent are pending; nothing changed. */
    NOT_DONE,
    /** The request is not in progress (another site completed it, or it was cancelled); nothing changed. */
    NOT_IN_PROGRESS,
    /** No request has this id. */
    NOT_FOUND
  }

  /** Checks the components. */
  public CompletionResult {
    Checks.present(status, "completion status");
    Checks.present(request, "completion request");
    Checks.atLeast(pendingJobs, 0, "pending jobs");
  }
}

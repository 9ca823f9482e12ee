package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Request;
import java.util.Optional;

/**
 * What cancelling a request did: cancelled it, its queued jobs and flagged its leased ones, or nothing
 * because it already finished.
 *
 * @param status what happened
 * @param request the request after the operation, absent when not found
 * @param queuedJobsCancelled how many queued jobs were cancelled
 * @param leasedJobsFlagged how many leased jobs were flagged; their holders learn it on the next heartbeat
 */
public record CancelResult(Status status, Optional<Request> request, int queuedJobsCancelled,
    int leasedJobsFlagged) {

  /** What cancelling did. */
  public enum Status {
    /** The request is cancelled now. */
    CANCELLED,
    /** The request had already completed or been cancelled; nothing changed. */
    ALREADY_FINISHED,
    /** No request has this id. */
    NOT_FOUND
  }

  /** Checks the components. */
  public CancelResult {
    Checks.present(status, "cancel status");
    Checks.present(request, "cancel request");
    Checks.atLeast(queuedJobsCancelled, 0, "cancelled jobs");
    Checks.atLeast(leasedJobsFlagged, 0, "flagged jobs");
  }
}

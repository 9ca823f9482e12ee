package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Request;
import java.util.List;
import java.util.Optional;

/**
 * What {@link QueueStore#startRequest} did: started the request and created its jobs, or nothing because
 * the cap is reached or the request is not ready.
 *
 * @param status what happened
 * @param request the request after the operation, absent when not found
 * @param jobs the jobs created for the request, in order (empty unless started)
 * @param backfill what happened to the parent
 * @param inProgress how many requests are in progress after the operation
 */
public record StartResult(Status status, Optional<Request> request, List<Job> jobs, Backfill backfill,
    int inProgress) {

  /** What starting did. */
  public enum Status {
    /** The request is in progress and its jobs exist. */
    STARTED,
    /** As many requests as the cap allows are in progress; nothing changed. */
    CAP_REACHED,
    /** The request is not ready (waiting, already started, completed or cancelled); nothing changed. */
    NOT_READY,
    /** No request has this id. */
    NOT_FOUND
  }

  /** Checks the components and copies the list. */
  public StartResult {
    Checks.present(status, "start status");
    Checks.present(request, "start request");
    jobs = List.copyOf(Checks.present(jobs, "start jobs"));
    Checks.present(backfill, "start backfill");
    Checks.atLeast(inProgress, 0, "requests in progress");
  }

  /**
   * A start that changed nothing.
   *
   * @param status why
   * @param request the request, when found
   * @param inProgress how many requests are in progress
   * @return the result
   */
  public static StartResult unchanged(Status status, Optional<Request> request, int inProgress) {
    return new StartResult(status, request, List.of(), Backfill.none(Backfill.Status.NOT_REQUESTED,
        Optional.empty()), inProgress);
  }
}

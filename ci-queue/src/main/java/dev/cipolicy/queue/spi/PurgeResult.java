package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Request;
import java.util.Optional;

/**
 * What purging an artifact did ({@link QueueStore#purge}): removed its request with its jobs and their
 * results, or nothing, with the reason.
 *
 * @param status what happened
 * @param request the request as it was before it was removed, or the request that was left alone; absent when
 *     no request has the tag
 * @param jobsRemoved how many jobs were removed (the request's own and those backfilled to it)
 * @param resultsRemoved how many job results were removed
 */
public record PurgeResult(Status status, Optional<Request> request, int jobsRemoved, int resultsRemoved) {

  /** What purging did. */
  public enum Status {
    /** The request, its jobs and their results are gone. */
    PURGED,
    /** No request has the tag; nothing changed (a reported no-op). */
    NOT_FOUND,
    /**
     * The request is open (waiting, ready or in progress); nothing changed. Cancel it first: purging never
     * takes work away from a running request behind the site's back.
     */
    REQUEST_OPEN,
    /**
     * A job of the closed request is leased (an optional job, or one backfilled to it, still running);
     * nothing changed. Purge again once its lease ends.
     */
    JOB_LEASED
  }

  /** Checks the components. */
  public PurgeResult {
    Checks.present(status, "purge status");
    Checks.present(request, "purge request");
    Checks.atLeast(jobsRemoved, 0, "removed jobs");
    Checks.atLeast(resultsRemoved, 0, "removed results");
  }

  /**
   * Nothing removed.
   *
   * @param status why
   * @param request the request left alone, if any
   * @return the result
   */
  public static PurgeResult unchanged(Status status, Optional<Request> request) {
    return new PurgeResult(status, request, 0, 0);
  }
}

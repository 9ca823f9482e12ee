package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import java.util.List;
import java.util.Optional;

/**
 * What starting a request did to its parent: the jobs enqueued for the parent (existing ones are
 * no-ops), or why nothing was enqueued.
 *
 * @param status what happened
 * @param parent the parent request, when it exists
 * @param created the jobs newly created for the parent, in order
 * @param existing how many of the jobs the parent already had
 */
public record Backfill(Status status, Optional<RequestId> parent, List<Job> created, int existing) {

  /** What happened to the parent. */
  public enum Status {
    /** Backfill was not asked for, or the request did not start. */
    NOT_REQUESTED,
    /** The request has no parent SHA (a release, a root commit). */
    NO_PARENT,
    /** No request has the parent SHA as its tag. */
    PARENT_UNKNOWN,
    /** The parent exists but never started (it is waiting or ready). */
    PARENT_NOT_STARTED,
    /** The parent was cancelled. */
    PARENT_CANCELLED,
    /** The parent is in progress or completed; the jobs it lacked were created. */
    ENQUEUED
  }

  /** Checks the components and copies the list. */
  public Backfill {
    Checks.present(status, "backfill status");
    Checks.present(parent, "backfill parent");
    created = List.copyOf(Checks.present(created, "backfilled jobs"));
    Checks.atLeast(existing, 0, "existing backfill jobs");
  }

  /**
   * A backfill that enqueued nothing.
   *
   * @param status why
   * @param parent the parent, when known
   * @return the backfill
   */
  public static Backfill none(Status status, Optional<RequestId> parent) {
    return new Backfill(status, parent, List.of(), 0);
  }

  /**
   * Why a parent in this state takes no backfilled jobs: only a parent that is in progress or completed
   * does (a cancelled parent never runs again; one not yet started gets its jobs when it starts).
   *
   * @param parent the parent request
   * @return the refusal, or empty when the parent accepts backfill
   */
  public static Optional<Backfill> refusedBy(Request parent) {
    Optional<RequestId> id = Optional.of(parent.id());
    return switch (parent.state()) {
      case CANCELLED -> Optional.of(none(Status.PARENT_CANCELLED, id));
      case WAITING_FOR_ARTIFACTS, ARTIFACTS_READY -> Optional.of(none(Status.PARENT_NOT_STARTED, id));
      default -> Optional.empty();
    };
  }
}

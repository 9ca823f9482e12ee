package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Request;
import java.util.List;

/**
 * What a submission did: created the request, or nothing because its tag exists or its PR already has an
 * open request of the same kind (a reported no-op); for a CI run also: attached to the run of the same key, or
 * created it cancelled because a newer run of its concurrency group is open, and which older runs it superseded.
 *
 * @param status what happened
 * @param request the created request, or the existing request the submission duplicates or attaches to
 * @param superseded the open CI runs this submission cancelled (older runs of its repository and concurrency
 *     group), by id; empty for every other status and kind
 */
public record SubmitResult(Status status, Request request, List<Request> superseded) {

  /** What a submission did. */
  public enum Status {
    /** The request was created. */
    CREATED,
    /** A request (of any kind) already has this tag; nothing changed. */
    DUPLICATE_TAG,
    /** The PR already has an open request of this kind; nothing changed. */
    DUPLICATE_OPEN_PR,
    /** A CI run with this repository, run id and attempt exists (in any state); nothing changed. */
    ATTACHED,
    /**
     * The CI run was created cancelled, without jobs: a newer run of its repository and concurrency group is
     * open and supersedes it (the request's {@code supersededBy}).
     */
    SUPERSEDED
  }

  /** Checks the components. */
  public SubmitResult {
    Checks.present(status, "submit status");
    Checks.present(request, "submit request");
    superseded = List.copyOf(Checks.present(superseded, "superseded requests"));
  }

  /**
   * A result that superseded nothing.
   *
   * @param status what happened
   * @param request the request
   */
  public SubmitResult(Status status, Request request) {
    this(status, request, List.of());
  }

  /**
   * Whether the request was created.
   *
   * @return true for {@link Status#CREATED}
   */
  public boolean created() {
    return status == Status.CREATED;
  }
}

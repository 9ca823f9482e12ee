package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Request;

/**
 * What a submission did: created the request, or nothing because its tag exists or its PR already has an
 * open request of the same kind (a reported no-op).
 *
 * @param status what happened
 * @param request the created request, or the existing request the submission duplicates
 */
public record SubmitResult(Status status, Request request) {

  /** What a submission did. */
  public enum Status {
    /** The request was created. */
    CREATED,
    /** A request (of any kind) already has this tag; nothing changed. */
    DUPLICATE_TAG,
    /** The PR already has an open request of this kind; nothing changed. */
    DUPLICATE_OPEN_PR
  }

  /** Checks the components. */
  public SubmitResult {
    Checks.present(status, "submit status");
    Checks.present(request, "submit request");
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

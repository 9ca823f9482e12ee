package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Request;
import java.util.Optional;

/**
 * What attaching artifacts to a try request did: a compare-and-set from waiting to ready, which changes
 * nothing unless the request is still waiting and the SHA is free.
 *
 * @param status what happened
 * @param request the request after the operation, absent when not found
 */
public record AttachResult(Status status, Optional<Request> request) {

  /** What attaching artifacts did. */
  public enum Status {
    /** The request was waiting and is now ready with the SHA as its tag. */
    ATTACHED,
    /** The request is not waiting for artifacts (already attached, started or cancelled); nothing changed. */
    NOT_WAITING,
    /** Another request already has this SHA as its tag; nothing changed. */
    DUPLICATE_TAG,
    /** No request has this id. */
    NOT_FOUND
  }

  /** Checks the components. */
  public AttachResult {
    Checks.present(status, "attach status");
    Checks.present(request, "attach request");
  }
}

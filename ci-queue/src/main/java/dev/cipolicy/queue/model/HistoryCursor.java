package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.time.Instant;

/**
 * A position in the history of completed requests, newest first: the completion instant and id of the last
 * entry of a page. The next page starts with the first request that completed before that instant, or at
 * that instant with a smaller id, so pages neither repeat nor skip a request when several completed at the
 * same instant (a keyset, not an offset: requests completing meanwhile do not shift the pages).
 *
 * @param finishedAt the completion instant of the last entry of the previous page
 * @param requestId the id of that entry
 */
public record HistoryCursor(Instant finishedAt, RequestId requestId) {

  /** Checks the components. */
  public HistoryCursor {
    Checks.present(finishedAt, "history cursor instant");
    Checks.present(requestId, "history cursor request id");
  }

  /**
   * The cursor after a completed request.
   *
   * @param request a completed request
   * @return the cursor just after it
   * @throws InvalidQueueInputException when the request is not completed
   */
  public static HistoryCursor after(Request request) {
    Checks.present(request, "request");
    if (request.state() != RequestState.COMPLETED) {
      throw new InvalidQueueInputException("a history cursor is placed after a completed request; "
          + request.label() + " is " + request.state().name().toLowerCase(java.util.Locale.ROOT));
    }
    return new HistoryCursor(request.finishedAt().orElseThrow(), request.id());
  }

  /**
   * Whether a completed request comes after this position in the history (newest first).
   *
   * @param request a completed request
   * @return true when it completed before {@link #finishedAt()}, or then with a smaller id
   */
  public boolean precedes(Request request) {
    Instant finished = request.finishedAt().orElseThrow();
    int byTime = finished.compareTo(finishedAt);
    return byTime < 0 || (byTime == 0 && request.id().compareTo(requestId) < 0);
  }
}

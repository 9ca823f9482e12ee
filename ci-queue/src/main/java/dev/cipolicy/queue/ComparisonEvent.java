package dev.cipolicy.queue;

import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestKind;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The signal that a master or try request completed and can be compared with its parent (the site posts
 * the comparison on the PR). Releases emit none. Exactly one site emits it: the one whose tick completed
 * the request.
 *
 * @param request the completed request
 * @param kind master or try
 * @param tag the request's SHA
 * @param parentSha the SHA to compare with, when known
 * @param pr the PR number, when known
 * @param outcome how the request went
 * @param completedAt when it completed
 */
public record ComparisonEvent(RequestId request, RequestKind kind, String tag, Optional<String> parentSha,
    OptionalLong pr, Outcome outcome, Instant completedAt) {

  /**
   * The event of a completed master or try request.
   *
   * @param completed the completed request
   * @return the event
   */
  static ComparisonEvent of(Request completed) {
    return new ComparisonEvent(completed.id(), completed.kind(), completed.tag().orElseThrow(),
        completed.parentSha(), completed.pr(), completed.outcome().orElseThrow(),
        completed.finishedAt().orElseThrow());
  }
}

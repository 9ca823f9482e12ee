package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.util.List;

/**
 * The record of what operators did to a queue (cancel, retry, pause, resume, drain...), kept next to the
 * queue: a store that implements it keeps the actions where it keeps the queue (in memory for the in-memory
 * store, a table for the PostgreSQL store), so every server over the same store shows the same record. An
 * action is recorded after it ran, with its result, at the store's {@code now}; recorded actions never change.
 * Actors, actions, targets and results are texts that pass {@link dev.cipolicy.queue.model.QueueNames#text}.
 */
public interface OperatorAudit {

  /** The most actions {@link #operatorActions} returns. */
  int MAX_LIMIT = 500;

  /**
   * Records an action, at the store's {@code now}.
   *
   * @param actor who did it, e.g. {@code token} or the user a trusted proxy named
   * @param action what, e.g. {@code retry}
   * @param target on what, e.g. {@code job 42}
   * @param result how it ended, e.g. {@code retried} or {@code not_found}
   * @return the recorded action, with its id and instant
   * @throws dev.cipolicy.queue.model.InvalidQueueInputException when a text is missing or not storable
   */
  OperatorAction recordAction(String actor, String action, String target, String result);

  /**
   * The most recent actions, newest first.
   *
   * @param limit how many at most, 1 to {@link #MAX_LIMIT}
   * @return the actions, newest (highest id) first
   * @throws dev.cipolicy.queue.model.InvalidQueueInputException when the limit is out of range
   */
  List<OperatorAction> operatorActions(int limit);

  /**
   * Checks a limit of {@link #operatorActions} as every audit does.
   *
   * @param limit the limit
   * @return the limit
   * @throws InvalidQueueInputException when it is outside 1 to {@link #MAX_LIMIT}
   */
  static int checkLimit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidQueueInputException("operator actions limit " + limit + " is out of range; expected 1 to "
          + MAX_LIMIT);
    }
    return limit;
  }
}

package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What operators set in the in-memory store: the paused pools and the audit of their actions. Not thread-safe: the
 * store calls it under its lock.
 */
final class OperatorRows {
  /** The paused pools. */
  private final Set<String> paused = new HashSet<>();
  /** The operator actions, in recording order (id {@code i} at index {@code i - 1}). */
  private final ArrayList<OperatorAction> actions = new ArrayList<>();

  boolean paused(String tag) {
    return paused.contains(tag);
  }

  /** Pauses or resumes a pool; whether that changed anything. */
  boolean setPaused(String tag, boolean pause) {
    return pause ? paused.add(tag) : paused.remove(tag);
  }

  Set<String> pausedPools() {
    return Set.copyOf(paused);
  }

  /** Records an action (its texts checked by the caller before the lock) at the store's instant. */
  OperatorAction record(Instant at, String actor, String action, String target, String result) {
    OperatorAction recorded = new OperatorAction(actions.size() + 1L, at, actor, action, target, result);
    actions.add(recorded);
    return recorded;
  }

  /** Refuses a limit of actions outside 1 to {@link OperatorAudit#MAX_LIMIT}. */
  static void checkLimit(int limit) {
    if (limit < 1 || limit > OperatorAudit.MAX_LIMIT) {
      throw new InvalidQueueInputException("operator actions limit " + limit + " is out of range; expected 1 to "
          + OperatorAudit.MAX_LIMIT);
    }
  }

  /** The newest actions first, at most {@code limit}. */
  List<OperatorAction> newest(int limit) {
    List<OperatorAction> out = new ArrayList<>(Math.min(limit, actions.size()));
    for (int i = actions.size() - 1; i >= 0 && out.size() < limit; i--) {
      out.add(actions.get(i));
    }
    return out;
  }
}

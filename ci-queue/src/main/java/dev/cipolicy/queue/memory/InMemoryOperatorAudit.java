package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link OperatorAudit} kept in memory: the in-memory store's audit, and the one a fleet server keeps for a
 * store that keeps none. Actions are numbered from 1 in recording order, recorded at the given source's instant
 * (the store's {@code now}), and gone when the process stops. Thread-safe.
 */
public final class InMemoryOperatorAudit implements OperatorAudit {

  private final InstantSource now;
  /** The operator actions, in recording order (id {@code i} at index {@code i - 1}). */
  private final ArrayList<OperatorAction> actions = new ArrayList<>();

  /**
   * Creates an empty audit.
   *
   * @param now the instant of a recording, for example a store's {@code now}: {@code store::now}
   * @throws InvalidQueueInputException when the source is missing
   */
  public InMemoryOperatorAudit(InstantSource now) {
    if (now == null) {
      throw new InvalidQueueInputException("the in-memory operator audit needs a source of instants; got none");
    }
    this.now = now;
  }

  @Override
  public OperatorAction recordAction(String actor, String action, String target, String result) {
    OperatorAction.check(actor, "actor");
    OperatorAction.check(action, "action");
    OperatorAction.check(target, "target");
    OperatorAction.check(result, "result");
    synchronized (actions) {
      Instant at = now.instant();
      OperatorAction recorded = new OperatorAction(actions.size() + 1L, at, actor, action, target, result);
      actions.add(recorded);
      return recorded;
    }
  }

  @Override
  public List<OperatorAction> operatorActions(int limit) {
    OperatorAudit.checkLimit(limit);
    synchronized (actions) {
      List<OperatorAction> out = new ArrayList<>(Math.min(limit, actions.size()));
      for (int i = actions.size() - 1; i >= 0 && out.size() < limit; i--) {
        out.add(actions.get(i));
      }
      return out;
    }
  }
}

package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.QueueNames;
import java.time.Instant;

/**
 * One recorded operator action ({@link OperatorAudit}): who did what to which target, when, and how it ended.
 *
 * @param id the record's id, increasing in recording order
 * @param at when it was recorded, on the store's clock
 * @param actor who did it
 * @param action what
 * @param target on what
 * @param result how it ended
 */
public record OperatorAction(long id, Instant at, String actor, String action, String target, String result) {

  /** Checks the components. */
  public OperatorAction {
    if (id < 1) {
      throw new InvalidQueueInputException("operator action id " + id + "; expected 1 or more");
    }
    Checks.present(at, "operator action instant");
    check(actor, "actor");
    check(action, "action");
    check(target, "target");
    check(result, "result");
  }

  /**
   * Checks one text of an action as every store does before it records it.
   *
   * @param text the text
   * @param what its name, for the message
   * @return the text
   * @throws InvalidQueueInputException when it is missing, blank or not storable
   */
  public static String check(String text, String what) {
    if (text == null || text.isBlank()) {
      throw new InvalidQueueInputException("operator action " + what + " is " + (text == null ? "missing" : "blank")
          + "; expected a text");
    }
    return QueueNames.text(text, "operator action " + what);
  }
}

package dev.cipolicy.queue;

import dev.cipolicy.queue.model.InvalidQueueInputException;

/**
 * A collector tag the site fans requests out to: every request gets one job per benchmark group on this
 * tag; jobs on a non-default (not required) tag are optional and never block completion.
 *
 * @param tag the collector tag, e.g. {@code x86-64}
 * @param required whether its jobs are required (a default collector)
 */
public record CollectorTarget(String tag, boolean required) {

  /** Checks the tag. */
  public CollectorTarget {
    if (tag == null || tag.isEmpty() || tag.chars().anyMatch(c -> Character.isWhitespace(c)
        || Character.isISOControl(c))) {
      throw new InvalidQueueInputException("collector target tag '" + tag
          + "' is not usable; expected a non-empty name without white space");
    }
  }

  /**
   * A default collector tag: its jobs are required.
   *
   * @param tag the tag
   * @return the target
   */
  public static CollectorTarget required(String tag) {
    return new CollectorTarget(tag, true);
  }

  /**
   * A non-default collector tag: its jobs are optional.
   *
   * @param tag the tag
   * @return the target
   */
  public static CollectorTarget optional(String tag) {
    return new CollectorTarget(tag, false);
  }
}

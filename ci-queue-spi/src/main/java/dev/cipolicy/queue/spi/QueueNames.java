package dev.cipolicy.queue.spi;

import org.jspecify.annotations.Nullable;

/**
 * The one rule for the names the queue stores and compares (SHAs, release tags, collector names and tags,
 * benchmark groups): non-empty, at most 200 characters, no white space and no control character. The values
 * of this package check their names with it, and so does the engine before it calls a store, so that a bad
 * name gets the same message wherever it is caught.
 */
public final class QueueNames {
  private QueueNames() {}

  /**
   * Checks a name.
   *
   * @param value the name
   * @param what what it names, for the message, e.g. {@code collector name}
   * @return the name
   * @throws InvalidQueueInputException when the name is missing, empty, longer than 200 characters or holds
   *     white space or a control character; the message names {@code what}, the value and the rule
   */
  public static String check(@Nullable String value, String what) {
    return Checks.token(value, what);
  }
}

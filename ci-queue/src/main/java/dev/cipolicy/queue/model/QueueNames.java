package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import org.jspecify.annotations.Nullable;

/**
 * The one rule for the text the queue stores, so that every store accepts and refuses the same input.
 *
 * <ul>
 *   <li><b>Names</b> the queue stores and compares (SHAs, release tags, collector names and tags, benchmark
 *       groups): non-empty, at most {@value #MAX_NAME} characters, no white space, no control character and
 *       no unpaired surrogate.
 *   <li><b>Free text</b> (a failure detail, a cancellation reason, a result given as text): at most
 *       {@value #MAX_TEXT} characters, no NUL character (U+0000) and no unpaired surrogate.
 * </ul>
 *
 * <p>NUL is refused because PostgreSQL's text types cannot hold it; an unpaired surrogate (half of a UTF-16
 * pair) because it has no UTF-8 form, so a database would keep a replacement character and two different
 * texts would become one. The values of this package check their text with these rules, and so do the
 * engine and every store before anything is written, so that a bad text gets the same message wherever it
 * is caught.
 */
public final class QueueNames {
  /** The most characters of a name. */
  public static final int MAX_NAME = 200;
  /** The most characters of a free text. */
  public static final int MAX_TEXT = 4000;

  private QueueNames() {}

  /**
   * Checks a free text.
   *
   * @param value the text
   * @param what what it is, for the message, e.g. {@code cancellation reason}
   * @return the text
   * @throws InvalidQueueInputException when the text is missing, longer than {@value #MAX_TEXT} characters, or
   *     holds a NUL character or an unpaired surrogate; the message names {@code what}, the index and the rule
   */
  public static String text(@Nullable String value, String what) {
    return Checks.text(value, what);
  }

  /**
   * Checks a name.
   *
   * @param value the name
   * @param what what it names, for the message, e.g. {@code collector name}
   * @return the name
   * @throws InvalidQueueInputException when the name is missing, empty, longer than 200 characters or holds
   *     white space, a control character or an unpaired surrogate; the message names {@code what}, the value
   *     and the rule
   */
  public static String check(@Nullable String value, String what) {
    return Checks.token(value, what);
  }
}

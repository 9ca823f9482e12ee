package dev.cipolicy.core.paths;

import dev.cipolicy.api.CiPolicyException;

/**
 * A path glob that does not parse: empty, with a leading {@code /}, an unclosed {@code [} or
 * <code>&#123;</code>, a nested <code>&#123;</code>, a trailing {@code \} or a malformed character
 * class. The message names the glob, its index in the list handed to {@link GlobSet#compile}, the
 * 0-based character position of the problem and what was expected there.
 */
public final class InvalidGlobException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String glob;
  private final int index;
  private final int position;
  private final String detail;

  /**
   * Creates the exception.
   *
   * @param glob the rejected glob
   * @param index the glob's 0-based index in the compiled list
   * @param position the 0-based character position of the problem in the glob
   * @param problem what is wrong there
   * @param expected what was expected there
   */
  public InvalidGlobException(String glob, int index, int position, String problem, String expected) {
    super("invalid glob #" + index + " \"" + glob + "\" at position " + position + ": " + problem
        + "; expected " + expected);
    this.glob = glob;
    this.index = index;
    this.position = position;
    this.detail = problem + "; expected " + expected;
  }

  /**
   * What is wrong at {@link #position()} and what was expected, without the glob and position.
   *
   * @return e.g. {@code the character class opened at position 4 is not closed; expected ']'}
   */
  public String detail() {
    return detail;
  }

  /**
   * The rejected glob.
   *
   * @return the glob as given
   */
  public String glob() {
    return glob;
  }

  /**
   * The rejected glob's 0-based index in the list handed to {@link GlobSet#compile}.
   *
   * @return the index
   */
  public int index() {
    return index;
  }

  /**
   * The 0-based character position of the problem in the glob; the glob's length when the glob ended
   * too early.
   *
   * @return the position
   */
  public int position() {
    return position;
  }
}

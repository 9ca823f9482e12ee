package dev.cipolicy.api;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The root of every exception ci-policy throws. Messages name the input, where it was found and what
 * was expected. Domain outcomes (a skipped stage, a failed gate) are values, never exceptions.
 *
 * <p>A message is always one line, whatever input text it quotes: the constructor writes a line feed as the
 * two characters {@code \n}, a carriage return as {@code \r}, and every other control character (but the tab)
 * and the Unicode line and paragraph separators as {@code \}{@code uXXXX}.
 */
public abstract class CiPolicyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a complete, human-readable message.
   *
   * @param message what went wrong, where, and what was expected
   */
  protected CiPolicyException(String message) {
    super(singleLine(message));
  }

  /**
   * Creates an exception with a message and the low-level cause.
   *
   * @param message what went wrong, where, and what was expected
   * @param cause the underlying failure
   */
  protected CiPolicyException(String message, Throwable cause) {
    super(singleLine(message), cause);
  }

  private static @Nullable String singleLine(@Nullable String message) {
    return message == null ? null : oneLine(message);
  }

  /**
   * Text on one line, as every message of ours is: a line feed is written {@code \n}, a carriage return
   * {@code \r}, any other control character (C0 but tab, DEL, C1) and the Unicode line and paragraph
   * separators as a backslash-u escape; everything else unchanged.
   */
  static String oneLine(String text) {
    StringBuilder sb = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean control = (c < 0x20 && c != '\t') || (c >= 0x7F && c <= 0x9F) || c == '\u2028' || c == '\u2029';
      if (control && sb == null) {
        sb = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (sb != null) {
        if (c == '\n') {
          sb.append("\\n");
        } else if (c == '\r') {
          sb.append("\\r");
        } else if (control) {
          sb.append("\\u").append(String.format(Locale.ROOT, "%04x", (int) c));
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? text : sb.toString();
  }

  /**
   * The message given to the constructor, never null.
   *
   * @return what went wrong, where, and what was expected
   */
  @Override
  public String getMessage() {
    String message = super.getMessage();
    return message != null ? message : getClass().getName();
  }
}

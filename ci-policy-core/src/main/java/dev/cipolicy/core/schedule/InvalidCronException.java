package dev.cipolicy.core.schedule;

import dev.cipolicy.api.CiPolicyException;

/** A cron string that is not a valid five-field UNIX cron expression. */
public final class InvalidCronException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String expression;

  /**
   * Creates the exception.
   *
   * @param expression the rejected cron string
   * @param reason what the parser objected to
   */
  public InvalidCronException(String expression, String reason) {
    super("invalid cron '" + shown(expression) + "': " + shown(reason)
        + " (expected five fields: minute hour day-of-month month day-of-week, UTC)");
    this.expression = expression;
  }

  /**
   * Text for a one-line message: control and non-ASCII characters as backslash-u escapes, at most 200
   * characters shown.
   */
  private static String shown(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length() && i < 200; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return s.length() > 200 ? sb + "... (" + s.length() + " characters)" : sb.toString();
  }

  /**
   * The rejected cron string.
   *
   * @return the expression as given
   */
  public String expression() {
    return expression;
  }
}

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
    super("invalid cron '" + expression + "': " + reason
        + " (expected five fields: minute hour day-of-month month day-of-week, UTC)");
    this.expression = expression;
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

package dev.cipolicy.workflow;

import dev.cipolicy.api.CiPolicyException;

/**
 * An expression that cannot be parsed or evaluated: a syntax error (with the 1-based column in the
 * expression and what was expected there), an unknown function, a wrong number of arguments, a bad
 * {@code format} placeholder or {@code fromJSON} input. The message is one line.
 */
public final class InvalidExpressionException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String expression;
  private final int column;

  /**
   * Creates the exception.
   *
   * @param expression the expression text
   * @param column the 1-based column in {@code expression} of the fault
   * @param problem what is wrong and what was expected
   */
  public InvalidExpressionException(String expression, int column, String problem) {
    super("expression '" + shown(expression) + "' column " + column + ": " + problem);
    this.expression = expression;
    this.column = column;
  }

  static String shown(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "... (" + s.length() + " characters)" : s;
  }

  /**
   * The expression text.
   *
   * @return the text given to the parser
   */
  public String expression() {
    return expression;
  }

  /**
   * Where in the expression the fault is.
   *
   * @return the 1-based column
   */
  public int column() {
    return column;
  }
}

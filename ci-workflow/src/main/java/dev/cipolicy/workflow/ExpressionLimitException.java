package dev.cipolicy.workflow;

import dev.cipolicy.api.CiPolicyException;

/**
 * An expression whose evaluation would compute a string longer than {@link Expression#MAX_STRING_LENGTH}
 * characters (e.g. nested {@code format} calls that each repeat their argument). Unlike an
 * {@link InvalidExpressionException}, which a simulated job's {@code if} turns into a failed job as GitHub
 * would, this ends the simulation: the model does not follow a run past its own limits. The message is one
 * line.
 */
public final class ExpressionLimitException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param expression the expression text
   * @param column the 1-based column in {@code expression} of the call or template that grew too long
   * @param problem what grew too long
   */
  public ExpressionLimitException(String expression, int column, String problem) {
    super("expression '" + InvalidExpressionException.shown(expression) + "' column " + column + ": " + problem
        + ", longer than the limit of " + Expression.MAX_STRING_LENGTH + " characters on any value an expression"
        + " computes; expected smaller values");
  }
}

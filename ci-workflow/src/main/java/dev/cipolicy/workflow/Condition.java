package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;

/**
 * A job's {@code if:}.
 *
 * @param expression the parsed condition
 * @param location where the {@code if:} value starts
 */
public record Condition(Expression expression, SourceLocation location) {
  /**
   * Parses a condition.
   *
   * @param text the {@code if:} value
   * @param location where it starts
   * @return the condition
   * @throws InvalidExpressionException for a syntax error
   */
  public static Condition parse(String text, SourceLocation location) {
    return new Condition(Expression.parseCondition(text), location);
  }
}

package dev.cipolicy.workflow;

import dev.cipolicy.workflow.Node.Lit;
import dev.cipolicy.workflow.Node.Template;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed expression of GitHub Actions: the body of {@code ${{ }}} or a job's {@code if:}. Immutable;
 * equal when the text is equal.
 *
 * <pre>{@code
 * Expression e = Expression.parseCondition("${{ needs.policy.outputs.bypass == 'true' }}");
 * ExprValue v = e.evaluate(environment);
 * }</pre>
 */
public final class Expression {
  /**
   * The longest string an evaluation may compute (by {@code format}, {@code join}, {@code toJSON} or a
   * template): 1,048,576 characters (1 MiB of ASCII). Past it, evaluation throws
   * {@link ExpressionLimitException}.
   */
  public static final int MAX_STRING_LENGTH = 1 << 20;

  private final String text;
  private final Node root;

  private Expression(String text, Node root) {
    this.text = text;
    this.root = root;
  }

  /**
   * Parses a bare expression (what stands between <code>${{</code> and <code>}}</code>).
   *
   * @param text the expression
   * @return the expression
   * @throws InvalidExpressionException naming the column and what was expected, for a syntax error, an
   *     unknown function or a wrong number of arguments
   */
  public static Expression parse(String text) {
    return new Expression(text, Parser.parse(text, 0, text.length()));
  }

  /**
   * Parses the value of an {@code if:} as GitHub reads it: a whole {@code ${{ expr }}} is the expression
   * {@code expr}; text with {@code ${{ }}} parts among other characters is a string template (truthy when
   * not empty — a classic mistake, since {@code if: ${{ a }} && b} is always true); anything else is a bare
   * expression.
   *
   * @param text the {@code if:} value
   * @return the expression; columns of errors are columns in {@code text}
   * @throws InvalidExpressionException for a syntax error
   */
  public static Expression parseCondition(String text) {
    String trimmed = text.strip();
    int lead = text.indexOf(trimmed);
    if (trimmed.startsWith("${{") && trimmed.endsWith("}}") && trimmed.indexOf("${{", 3) < 0
        && trimmed.indexOf("}}") == trimmed.length() - 2 && trimmed.length() >= 5) {
      return new Expression(text, Parser.parse(text, lead + 3, lead + trimmed.length() - 2));
    }
    if (!text.contains("${{")) {
      return parse(text);
    }
    return new Expression(text, template(text));
  }

  /**
   * Parses text with {@code ${{ }}} parts, such as a job output's value, into a string template.
   *
   * @param text the text
   * @return the template; its value is a string
   * @throws InvalidExpressionException for a syntax error in a part or an unclosed <code>${{</code>
   */
  public static Expression parseTemplate(String text) {
    return new Expression(text, template(text));
  }

  private static Node template(String text) {
    List<Node> parts = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      int open = text.indexOf("${{", i);
      if (open < 0) {
        parts.add(new Lit(new ExprValue.Str(text.substring(i)), i, text.length()));
        break;
      }
      if (open > i) {
        parts.add(new Lit(new ExprValue.Str(text.substring(i, open)), i, open));
      }
      int close = closing(text, open + 3);
      if (close < 0) {
        throw new InvalidExpressionException(text, open + 1, "'${{' is not closed; expected '}}'");
      }
      parts.add(Parser.parse(text, open + 3, close));
      i = close + 2;
    }
    return new Template(List.copyOf(parts), 0, text.length());
  }

  /** The index of the {@code }}} closing an expression that starts at {@code from}, skipping strings. */
  private static int closing(String text, int from) {
    boolean inString = false;
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\'') {
        inString = !inString;
      } else if (!inString && c == '}' && i + 1 < text.length() && text.charAt(i + 1) == '}') {
        return i;
      }
    }
    return -1;
  }

  /**
   * The text as given.
   *
   * @return the text
   */
  public String text() {
    return text;
  }

  /**
   * Whether a status function ({@code success()}, {@code failure()}, {@code cancelled()}, {@code always()})
   * appears anywhere in the expression — GitHub adds its implicit {@code success() &&} to a job's {@code if}
   * only when none does, even when it is negated as in {@code !success()}.
   *
   * @return whether a status function is called
   */
  public boolean callsStatusFunction() {
    return callsStatus(root);
  }

  /**
   * The job ids the expression reads through the {@code needs} context ({@code needs.X...} or
   * {@code needs['X']...}), in the order written.
   *
   * @return the ids as written
   */
  public java.util.Set<String> neededJobs() {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    java.util.Deque<Node> todo = new java.util.ArrayDeque<>();
    todo.push(root);
    while (!todo.isEmpty()) {
      Node n = todo.pop();
      if (n instanceof Node.Prop p && p.target() instanceof Node.Ctx c && c.name().equals("needs")) {
        out.add(p.name());
      } else if (n instanceof Node.Index ix && ix.target() instanceof Node.Ctx c && c.name().equals("needs")
          && ix.index() instanceof Node.Lit l && l.value() instanceof ExprValue.Str str) {
        out.add(str.value());
      }
      List<Node> children = children(n);
      for (int i = children.size() - 1; i >= 0; i--) {
        todo.push(children.get(i));
      }
    }
    return out;
  }

  private static List<Node> children(Node n) {
    if (n instanceof Node.Call c) {
      return c.args();
    } else if (n instanceof Node.Prop p) {
      return List.of(p.target());
    } else if (n instanceof Node.Star s) {
      return List.of(s.target());
    } else if (n instanceof Node.Index ix) {
      return List.of(ix.target(), ix.index());
    } else if (n instanceof Node.Not not) {
      return List.of(not.operand());
    } else if (n instanceof Node.Bin b) {
      return List.of(b.left(), b.right());
    } else if (n instanceof Template t) {
      return t.parts();
    }
    return List.of();
  }

  private static boolean callsStatus(Node n) {
    if (n instanceof Node.Call c) {
      if (c.name().equals("success") || c.name().equals("failure") || c.name().equals("cancelled")
          || c.name().equals("always")) {
        return true;
      }
      return c.args().stream().anyMatch(Expression::callsStatus);
    } else if (n instanceof Node.Prop p) {
      return callsStatus(p.target());
    } else if (n instanceof Node.Star s) {
      return callsStatus(s.target());
    } else if (n instanceof Node.Index ix) {
      return callsStatus(ix.target()) || callsStatus(ix.index());
    } else if (n instanceof Node.Not not) {
      return callsStatus(not.operand());
    } else if (n instanceof Node.Bin b) {
      return callsStatus(b.left()) || callsStatus(b.right());
    } else if (n instanceof Template t) {
      return t.parts().stream().anyMatch(Expression::callsStatus);
    }
    return false;
  }

  /**
   * Evaluates the expression.
   *
   * @param env the contexts and status functions
   * @return the value; {@link ExprValue.Unknown} when it depends on something {@code env} does not know
   * @throws InvalidExpressionException for an error only evaluation finds ({@code fromJSON} of text that is
   *     not JSON, a {@code format} placeholder without its argument)
   * @throws ExpressionLimitException when a string it computes would be longer than
   *     {@link #MAX_STRING_LENGTH}
   */
  public ExprValue evaluate(ExpressionEnvironment env) {
    return new Evaluator(text, env, false).eval(root);
  }

  /**
   * Evaluates the expression as a condition and says why it has its truth, naming the deciding terms, e.g.
   * {@code `needs.policy.outputs.bypass == 'true'` is false (needs.policy.outputs.bypass is 'false')}.
   *
   * @param env the contexts and status functions
   * @return the truth and the explanation
   * @throws InvalidExpressionException as {@link #evaluate} does
   * @throws ExpressionLimitException as {@link #evaluate} does
   */
  public Verdict decide(ExpressionEnvironment env) {
    Evaluator e = new Evaluator(text, env, true);
    ExprValue v = e.eval(root);
    return new Verdict(v, v.truth(), e.explain(root));
  }

  /**
   * The result of a condition.
   *
   * @param value the expression's value
   * @param truth its truthiness
   * @param explanation why, naming the deciding terms
   */
  public record Verdict(ExprValue value, Tri truth, String explanation) {}

  @Override
  public boolean equals(Object o) {
    return o instanceof Expression e && e.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}

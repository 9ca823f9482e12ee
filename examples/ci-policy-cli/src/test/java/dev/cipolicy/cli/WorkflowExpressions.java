package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small evaluator of GitHub Actions expressions, enough for the example workflows, and loud on anything
 * else: an unsupported operator, function or context fails the test instead of being guessed at.
 *
 * <p>Supported: string literals ({@code 'it''s'}), numbers, {@code true}, {@code false}, {@code null};
 * property paths into the contexts given ({@code github.event.action}, {@code inputs.cadence},
 * {@code needs.policy.outputs.skipped_stages}, {@code steps.resolve.outputs.cadence}, ...; a missing property
 * is {@code null}); the operators {@code !}, {@code ==}, {@code !=}, {@code &&}, {@code ||} and parentheses,
 * with GitHub's rules (strings compare ignoring case, other mixed types compare as numbers, {@code &&} and
 * {@code ||} give an operand); the functions {@code contains}, {@code startsWith}, {@code fromJSON},
 * {@code toJSON} and {@code success()}. Not supported (an error): {@code always()}, {@code failure()},
 * {@code cancelled()}, {@code hashFiles}, {@code format}, comparisons {@code < > <= >=}, indexing
 * {@code [..]} and the {@code *} filter.
 *
 * <p>It is an intentionally independent oracle, not a copy of the product's evaluator
 * ({@code dev.cipolicy.workflow.Expression}): the harness runs the example workflows step by step as the
 * runner would, and checks that the simulator predicts the same jobs, so the harness must not share the code
 * it checks. {@code WorkflowExpressionsOracleTest} compares the two on every {@code if:} of every example
 * workflow in a range of contexts.
 */
final class WorkflowExpressions {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, JsonNode> contexts;

  /**
   * An evaluator over the named contexts.
   *
   * @param contexts the contexts by name ({@code github}, {@code inputs}, {@code needs}, {@code steps}, ...)
   */
  WorkflowExpressions(Map<String, JsonNode> contexts) {
    this.contexts = contexts;
  }

  /** Replaces every {@code ${{ expr }}} in the text by its value as a string. */
  String substitute(String text) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int open = text.indexOf("${{", at);
      if (open < 0) {
        out.append(text, at, text.length());
        return out.toString();
      }
      int close = text.indexOf("}}", open);
      if (close < 0) {
        throw new AssertionError("unterminated ${{ in: " + text);
      }
      out.append(text, at, open);
      out.append(asString(evaluate(text.substring(open + 3, close))));
      at = close + 2;
    }
  }

  /** An {@code if:} condition, with or without {@code ${{ }}}. */
  boolean condition(String text) {
    String t = text.strip();
    if (t.startsWith("${{") && t.endsWith("}}")) {
      t = t.substring(3, t.length() - 2);
    }
    return truthy(evaluate(t));
  }

  /** Evaluates one expression (the text between {@code ${{} and {@code }}}). */
  JsonNode evaluate(String expression) {
    Parser p = new Parser(expression);
    JsonNode v = p.or();
    p.skipSpace();
    if (p.pos != expression.length()) {
      throw p.unsupported("unexpected text");
    }
    return v;
  }

  static boolean truthy(JsonNode v) {
    if (v.isNull() || v.isMissingNode()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isNumber()) {
      return v.doubleValue() != 0 && !Double.isNaN(v.doubleValue());
    }
    if (v.isTextual()) {
      return !v.textValue().isEmpty();
    }
    return true;
  }

  static String asString(JsonNode v) {
    if (v.isNull() || v.isMissingNode()) {
      return "";
    }
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isNumber()) {
      double d = v.doubleValue();
      return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d) : Double.toString(d);
    }
    if (v.isBoolean()) {
      return Boolean.toString(v.booleanValue());
    }
    return v.toString();
  }

  private static double number(JsonNode v) {
    if (v.isNull() || v.isMissingNode()) {
      return 0;
    }
    if (v.isBoolean()) {
      return v.booleanValue() ? 1 : 0;
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isTextual()) {
      String s = v.textValue().strip();
      if (s.isEmpty()) {
        return 0;
      }
      try {
        return Double.parseDouble(s);
      } catch (NumberFormatException e) {
        return Double.NaN;
      }
    }
    return Double.NaN;
  }

  static boolean looseEquals(JsonNode a, JsonNode b) {
    boolean an = a.isNull() || a.isMissingNode();
    boolean bn = b.isNull() || b.isMissingNode();
    if (an && bn) {
      return true;
    }
    if (a.isTextual() && b.isTextual()) {
      return a.textValue().equalsIgnoreCase(b.textValue());
    }
    if ((a.isContainerNode() || b.isContainerNode())) {
      return a == b;
    }
    return number(a) == number(b);
  }

  private final class Parser {
    private final String text;
    private int pos;

    Parser(String text) {
      this.text = text;
    }

    AssertionError unsupported(String what) {
      return new AssertionError("unsupported expression (" + what + " at " + pos + "): " + text.strip());
    }

    void skipSpace() {
      while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
        pos++;
      }
    }

    boolean eat(String token) {
      skipSpace();
      if (text.startsWith(token, pos)) {
        pos += token.length();
        return true;
      }
      return false;
    }

    JsonNode or() {
      JsonNode left = and();
      while (eat("||")) {
        JsonNode right = and();
        left = truthy(left) ? left : right;
      }
      return left;
    }

    JsonNode and() {
      JsonNode left = equality();
      while (eat("&&")) {
        JsonNode right = equality();
        left = truthy(left) ? right : left;
      }
      return left;
    }

    JsonNode equality() {
      JsonNode left = unary();
      while (true) {
        if (eat("==")) {
          left = BooleanNode.valueOf(looseEquals(left, unary()));
        } else if (eat("!=")) {
          left = BooleanNode.valueOf(!looseEquals(left, unary()));
        } else {
          skipSpace();
          if (pos < text.length() && "<>".indexOf(text.charAt(pos)) >= 0) {
            throw unsupported("comparison");
          }
          return left;
        }
      }
    }

    JsonNode unary() {
      if (eat("!")) {
        return BooleanNode.valueOf(!truthy(unary()));
      }
      return primary();
    }

    JsonNode primary() {
      skipSpace();
      if (pos >= text.length()) {
        throw unsupported("missing operand");
      }
      char c = text.charAt(pos);
      if (c == '(') {
        pos++;
        JsonNode v = or();
        if (!eat(")")) {
          throw unsupported("missing )");
        }
        return v;
      }
      if (c == '\'') {
        StringBuilder s = new StringBuilder();
        pos++;
        while (true) {
          if (pos >= text.length()) {
            throw unsupported("unterminated string");
          }
          char d = text.charAt(pos++);
          if (d == '\'') {
            if (pos < text.length() && text.charAt(pos) == '\'') {
              s.append('\'');
              pos++;
            } else {
              return TextNode.valueOf(s.toString());
            }
          } else {
            s.append(d);
          }
        }
      }
      if (Character.isDigit(c) || c == '-') {
        int start = pos++;
        while (pos < text.length() && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
          pos++;
        }
        return DoubleNode.valueOf(Double.parseDouble(text.substring(start, pos)));
      }
      String name = identifier();
      switch (name) {
        case "true":
          return BooleanNode.TRUE;
        case "false":
          return BooleanNode.FALSE;
        case "null":
          return NullNode.getInstance();
        default:
          break;
      }
      if (eat("(")) {
        List<JsonNode> args = new ArrayList<>();
        if (!eat(")")) {
          do {
            args.add(or());
          } while (eat(","));
          if (!eat(")")) {
            throw unsupported("missing ) after the arguments of " + name);
          }
        }
        return call(name, args);
      }
      JsonNode v = contexts.get(name);
      if (v == null) {
        throw unsupported("context '" + name + "'");
      }
      while (true) {
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == '[') {
          throw unsupported("indexing");
        }
        if (!eat(".")) {
          return v;
        }
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == '*') {
          throw unsupported("the * filter");
        }
        String property = identifier();
        JsonNode next = v.isObject() ? v.get(property) : null;
        v = next == null ? NullNode.getInstance() : next;
      }
    }

    private String identifier() {
      skipSpace();
      int start = pos;
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (Character.isLetterOrDigit(c) || c == '_' || (c == '-' && pos > start)) {
          pos++;
        } else {
          break;
        }
      }
      if (start == pos) {
        throw unsupported("unexpected character");
      }
      return text.substring(start, pos);
    }

    private JsonNode call(String name, List<JsonNode> args) {
      switch (name.toLowerCase(Locale.ROOT)) {
        case "success":
          arity(name, args, 0);
          return BooleanNode.TRUE;
        case "contains": {
          arity(name, args, 2);
          JsonNode hay = args.get(0);
          if (hay.isArray()) {
            for (JsonNode e : hay) {
              if (looseEquals(e, args.get(1))) {
                return BooleanNode.TRUE;
              }
            }
            return BooleanNode.FALSE;
          }
          return BooleanNode.valueOf(asString(hay).toLowerCase(Locale.ROOT)
              .contains(asString(args.get(1)).toLowerCase(Locale.ROOT)));
        }
        case "startswith":
          arity(name, args, 2);
          return BooleanNode.valueOf(asString(args.get(0)).toLowerCase(Locale.ROOT)
              .startsWith(asString(args.get(1)).toLowerCase(Locale.ROOT)));
        case "fromjson":
          arity(name, args, 1);
          try {
            return JSON.readTree(asString(args.get(0)));
          } catch (java.io.IOException e) {
            // the runner fails the job on bad JSON; so does the harness
            throw new AssertionError("fromJSON of text that is not JSON: '" + asString(args.get(0)) + "'", e);
          }
        case "tojson":
          arity(name, args, 1);
          return TextNode.valueOf(args.get(0).toPrettyString());
        default:
          throw unsupported("function " + name + "()");
      }
    }

    private void arity(String name, List<JsonNode> args, int n) {
      if (args.size() != n) {
        throw unsupported(name + "() takes " + n + " argument(s)");
      }
    }
  }
}

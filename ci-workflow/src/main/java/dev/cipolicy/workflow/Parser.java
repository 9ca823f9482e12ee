package dev.cipolicy.workflow;

import dev.cipolicy.workflow.Node.Bin;
import dev.cipolicy.workflow.Node.Call;
import dev.cipolicy.workflow.Node.Ctx;
import dev.cipolicy.workflow.Node.Index;
import dev.cipolicy.workflow.Node.Lit;
import dev.cipolicy.workflow.Node.Not;
import dev.cipolicy.workflow.Node.Op;
import dev.cipolicy.workflow.Node.Prop;
import dev.cipolicy.workflow.Node.Star;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Lexer and recursive-descent parser of the expression language. Precedence, loosest first: {@code ||},
 * {@code &&}, {@code == !=}, {@code < <= > >=}, {@code !}, then property access, index and filter; binary
 * operators associate to the left.
 */
final class Parser {
  /** GitHub rejects expressions nested deeper than this; it also keeps the parser off the stack limit. */
  static final int MAX_DEPTH = 50;

  /**
   * The tallest syntax tree accepted: 400 levels of operators, calls and property accesses, counted along
   * chains such as {@code a || b || c} too (which nest no parentheses), so evaluation cannot overflow the stack.
   */
  static final int MAX_HEIGHT = 400;

  private final java.util.IdentityHashMap<Node, Integer> heights = new java.util.IdentityHashMap<>();

  /** Function name (lower case) to canonical name, least and most arguments. */
  record Function(String name, int min, int max) {}

  static final Map<String, Function> FUNCTIONS = functions(
      new Function("contains", 2, 2), new Function("startsWith", 2, 2), new Function("endsWith", 2, 2),
      new Function("format", 1, Integer.MAX_VALUE), new Function("join", 1, 2), new Function("toJSON", 1, 1),
      new Function("fromJSON", 1, 1), new Function("hashFiles", 1, Integer.MAX_VALUE),
      new Function("success", 0, 0), new Function("failure", 0, 0), new Function("cancelled", 0, 0),
      new Function("always", 0, 0));

  private static Map<String, Function> functions(Function... fs) {
    Map<String, Function> m = new java.util.LinkedHashMap<>();
    for (Function f : fs) {
      m.put(f.name().toLowerCase(Locale.ROOT), f);
    }
    return Map.copyOf(m);
  }

  private enum Kind { NUMBER, STRING, IDENT, PUNCT, END }

  private record Token(Kind kind, String text, ExprValue value, int start, int end) {}

  private final String source;
  private final int from;
  private final int to;
  private final List<Token> tokens = new ArrayList<>();
  private int next;
  private int depth;

  private Parser(String source, int from, int to) {
    this.source = source;
    this.from = from;
    this.to = to;
  }

  /** Parses {@code source[from, to)} as one expression; offsets in the tree and errors are in source. */
  static Node parse(String source, int from, int to) {
    Parser p = new Parser(source, from, to);
    p.lex();
    Node n = p.or();
    Token t = p.peek();
    if (t.kind() != Kind.END) {
      throw p.error(t.start(), "unexpected " + describe(t) + "; expected an operator or the end of the expression");
    }
    return n;
  }

  private InvalidExpressionException error(int offset, String problem) {
    return new InvalidExpressionException(source, offset + 1, problem);
  }

  private static String describe(Token t) {
    return t.kind() == Kind.END ? "end of expression" : "'" + t.text() + "'";
  }

  // ---- lexer

  private void lex() {
    int i = from;
    while (i < to) {
      char c = source.charAt(i);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        i++;
      } else if (c == '\'') {
        StringBuilder sb = new StringBuilder();
        int j = i + 1;
        while (true) {
          if (j >= to) {
            throw error(i, "unterminated string; expected a closing ' (write '' for a quote inside)");
          }
          char d = source.charAt(j);
          if (d == '\'') {
            if (j + 1 < to && source.charAt(j + 1) == '\'') {
              sb.append('\'');
              j += 2;
              continue;
            }
            break;
          }
          sb.append(d);
          j++;
        }
        tokens.add(new Token(Kind.STRING, source.substring(i, j + 1), new ExprValue.Str(sb.toString()), i, j + 1));
        i = j + 1;
      } else if (c == '"') {
        throw error(i, "a double quote; expected a string in single quotes ('...')");
      } else if (isDigit(c) || ((c == '-' || c == '+' || c == '.') && i + 1 < to && isDigit(source.charAt(i + 1)))) {
        int j = i + 1;
        while (j < to && (Character.isLetterOrDigit(source.charAt(j)) || source.charAt(j) == '.'
            || ((source.charAt(j) == '-' || source.charAt(j) == '+')
                && (source.charAt(j - 1) == 'e' || source.charAt(j - 1) == 'E')))) {
          j++;
        }
        String text = source.substring(i, j);
        double d = literalNumber(text);
        if (Double.isNaN(d)) {
          throw error(i, "'" + text + "' is not a number; expected a decimal (with optional exponent) or 0x hex number");
        }
        tokens.add(new Token(Kind.NUMBER, text, new ExprValue.Num(d), i, j));
        i = j;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i + 1;
        while (j < to && (Character.isLetterOrDigit(source.charAt(j)) || source.charAt(j) == '_'
            || source.charAt(j) == '-')) {
          j++;
        }
        tokens.add(new Token(Kind.IDENT, source.substring(i, j), ExprValue.NULL, i, j));
        i = j;
      } else {
        String two = i + 1 < to ? source.substring(i, i + 2) : "";
        if (two.equals("&&") || two.equals("||") || two.equals("==") || two.equals("!=") || two.equals("<=")
            || two.equals(">=")) {
          tokens.add(new Token(Kind.PUNCT, two, ExprValue.NULL, i, i + 2));
          i += 2;
        } else if ("!<>()[].,*".indexOf(c) >= 0) {
          tokens.add(new Token(Kind.PUNCT, String.valueOf(c), ExprValue.NULL, i, i + 1));
          i++;
        } else {
          throw error(i, "unexpected character '" + (c < 0x20 || c > 0x7e
              ? String.format(Locale.ROOT, "\\u%04x", (int) c) : String.valueOf(c))
              + "'; expected a literal, a context, a function or an operator");
        }
      }
    }
    tokens.add(new Token(Kind.END, "", ExprValue.NULL, to, to));
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** A number literal: JSON's decimal form with an optional sign and exponent, or 0x/0o/0b integers. */
  private static double literalNumber(String text) {
    String body = text.startsWith("-") || text.startsWith("+") ? text.substring(1) : text;
    if (body.startsWith("0x") || body.startsWith("0X") || body.startsWith("0o") || body.startsWith("0b")) {
      double d = Coercion.parseNumber(body, false);
      return text.startsWith("-") ? -d : d;
    }
    return Coercion.parseNumber(text, false);
  }

  // ---- parser

  private Token peek() {
    return tokens.get(next);
  }

  private boolean at(String punct) {
    Token t = peek();
    return t.kind() == Kind.PUNCT && t.text().equals(punct);
  }

  private Token expect(String punct, String expected) {
    Token t = peek();
    if (!at(punct)) {
      throw error(t.start(), "unexpected " + describe(t) + "; expected " + expected);
    }
    next++;
    return t;
  }

  /** Records a node's height (one more than its tallest child's), failing past {@link #MAX_HEIGHT}. */
  private <T extends Node> T tall(T node, Node... children) {
    int h = 0;
    for (Node c : children) {
      h = Math.max(h, heights.getOrDefault(c, 0));
    }
    if (h + 1 > MAX_HEIGHT) {
      throw error(node.start(), "expression has more than " + MAX_HEIGHT + " levels of operators, calls and"
          + " properties; expected a smaller expression");
    }
    heights.put(node, h + 1);
    return node;
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      throw error(peek().start(), "expression nested deeper than " + MAX_DEPTH + " levels; expected a flatter expression");
    }
  }

  private Node or() {
    enter();
    Node left = and();
    while (at("||")) {
      next++;
      Node right = and();
      left = tall(new Bin(Op.OR, left, right, left.start(), right.end()), left, right);
    }
    depth--;
    return left;
  }

  private Node and() {
    Node left = equality();
    while (at("&&")) {
      next++;
      Node right = equality();
      left = tall(new Bin(Op.AND, left, right, left.start(), right.end()), left, right);
    }
    return left;
  }

  private Node equality() {
    Node left = comparison();
    while (at("==") || at("!=")) {
      Op op = at("==") ? Op.EQ : Op.NE;
      next++;
      Node right = comparison();
      left = tall(new Bin(op, left, right, left.start(), right.end()), left, right);
    }
    return left;
  }

  private Node comparison() {
    Node left = unary();
    while (at("<") || at("<=") || at(">") || at(">=")) {
      String s = peek().text();
      Op op = s.equals("<") ? Op.LT : s.equals("<=") ? Op.LE : s.equals(">") ? Op.GT : Op.GE;
      next++;
      Node right = unary();
      left = tall(new Bin(op, left, right, left.start(), right.end()), left, right);
    }
    return left;
  }

  private Node unary() {
    if (at("!")) {
      Token bang = peek();
      next++;
      enter();
      Node operand = unary();
      depth--;
      return tall(new Not(operand, bang.start(), operand.end()), operand);
    }
    return postfix(primary());
  }

  private Node primary() {
    Token t = peek();
    switch (t.kind()) {
      case NUMBER, STRING -> {
        next++;
        return new Lit(t.value(), t.start(), t.end());
      }
      case IDENT -> {
        next++;
        String name = t.text();
        if (at("(")) {
          return call(t);
        }
        switch (name) {
          case "true" -> {
            return new Lit(new ExprValue.Bool(true), t.start(), t.end());
          }
          case "false" -> {
            return new Lit(new ExprValue.Bool(false), t.start(), t.end());
          }
          case "null" -> {
            return new Lit(ExprValue.NULL, t.start(), t.end());
          }
          case "NaN" -> {
            return new Lit(new ExprValue.Num(Double.NaN), t.start(), t.end());
          }
          case "Infinity" -> {
            return new Lit(new ExprValue.Num(Double.POSITIVE_INFINITY), t.start(), t.end());
          }
          default -> {
            return new Ctx(name.toLowerCase(Locale.ROOT), t.start(), t.end());
          }
        }
      }
      case PUNCT -> {
        if (t.text().equals("(")) {
          next++;
          Node inner = or();
          expect(")", "')' closing the '(' at column " + (t.start() + 1));
          return inner;
        }
        throw error(t.start(), "unexpected " + describe(t) + "; expected a literal, a context, a function call, '!' or '('");
      }
      default -> throw error(t.start(), "unexpected end of expression; expected a literal, a context, a function call, '!' or '('");
    }
  }

  private Node call(Token name) {
    Function f = FUNCTIONS.get(name.text().toLowerCase(Locale.ROOT));
    if (f == null) {
      throw error(name.start(), "unknown function '" + name.text() + "'; expected one of contains, startsWith, "
          + "endsWith, format, join, toJSON, fromJSON, hashFiles, success, failure, cancelled, always");
    }
    next++; // (
    enter();
    List<Node> args = new ArrayList<>();
    if (!at(")")) {
      args.add(or());
      while (at(",")) {
        next++;
        args.add(or());
      }
    }
    Token close = expect(")", "',' or ')' in the arguments of " + f.name() + "()");
    depth--;
    if (args.size() < f.min() || args.size() > f.max()) {
      String want = f.min() == f.max() ? String.valueOf(f.min())
          : f.max() == Integer.MAX_VALUE ? "at least " + f.min() : f.min() + " to " + f.max();
      throw error(name.start(), f.name() + "() takes " + want + " argument" + (want.equals("1") ? "" : "s")
          + ", got " + args.size());
    }
    return tall(new Call(f.name(), List.copyOf(args), name.start(), close.end()), args.toArray(new Node[0]));
  }

  private Node postfix(Node target) {
    Node n = target;
    while (true) {
      if (at(".")) {
        next++;
        Token t = peek();
        if (t.kind() == Kind.IDENT) {
          next++;
          n = tall(new Prop(n, t.text(), n.start(), t.end()), n);
        } else if (t.kind() == Kind.PUNCT && t.text().equals("*")) {
          next++;
          n = tall(new Star(n, n.start(), t.end()), n);
        } else {
          throw error(t.start(), "unexpected " + describe(t) + " after '.'; expected a property name or '*'");
        }
      } else if (at("[")) {
        next++;
        if (at("*")) {
          next++;
          Token close = expect("]", "']' after '[*'");
          n = tall(new Star(n, n.start(), close.end()), n);
        } else {
          enter();
          Node index = or();
          depth--;
          Token close = expect("]", "']' closing the index");
          n = tall(new Index(n, index, n.start(), close.end()), n, index);
        }
      } else {
        return n;
      }
    }
  }
}

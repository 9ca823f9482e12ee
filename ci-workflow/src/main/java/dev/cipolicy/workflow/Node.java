package dev.cipolicy.workflow;

import java.util.List;

/** The syntax tree of an expression; offsets are 0-based into the text given to the parser. */
sealed interface Node {
  int start();

  int end();

  /** A literal. */
  record Lit(ExprValue value, int start, int end) implements Node {}

  /** A context name ({@code github}, {@code needs}, ...), lower-case. */
  record Ctx(String name, int start, int end) implements Node {}

  /** {@code target.name}. */
  record Prop(Node target, String name, int start, int end) implements Node {}

  /** {@code target.*} or {@code target[*]}: an object filter. */
  record Star(Node target, int start, int end) implements Node {}

  /** {@code target[index]}. */
  record Index(Node target, Node index, int start, int end) implements Node {}

  /** A function call; {@code name} is the canonical spelling. */
  record Call(String name, List<Node> args, int start, int end) implements Node {}

  /** {@code !operand}. */
  record Not(Node operand, int start, int end) implements Node {}

  /** A binary operator. */
  record Bin(Op op, Node left, Node right, int start, int end) implements Node {}

  /** Text with {@code ${{ }}} parts: the parts' string values concatenated. */
  record Template(List<Node> parts, int start, int end) implements Node {}

  /** The binary operators. */
  enum Op {
    OR("||"), AND("&&"), EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">=");

    final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }
  }
}

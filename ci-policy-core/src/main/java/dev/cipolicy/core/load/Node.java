package dev.cipolicy.core.load;

import dev.cipolicy.api.SourceLocation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A document node with the location where it starts; the parsed form of YAML or JSON text. */
sealed interface Node permits Node.MapNode, Node.ListNode, Node.Scalar {

  SourceLocation location();

  /** What the node is, for "expected X, found Y" messages. */
  String describe();

  /** A key of a mapping with the location of the key itself. */
  record Entry(String key, SourceLocation keyLocation, Node value) {}

  /** A mapping with keys in document order. */
  record MapNode(SourceLocation location, LinkedHashMap<String, Entry> entries) implements Node {
    @Override
    public String describe() {
      return "a mapping";
    }

    Map<String, Entry> view() {
      return entries;
    }
  }

  /** A sequence. */
  record ListNode(SourceLocation location, List<Node> items) implements Node {
    @Override
    public String describe() {
      return "a list";
    }
  }

  /** A scalar and the kind of token it was. */
  record Scalar(SourceLocation location, Kind kind, String text) implements Node {
    enum Kind {
      STRING,
      INTEGER,
      DECIMAL,
      BOOLEAN,
      NULL
    }

    @Override
    public String describe() {
      return switch (kind) {
        case STRING -> "a string";
        case INTEGER -> "an integer (" + text + ")";
        case DECIMAL -> "a number (" + text + ")";
        case BOOLEAN -> "a boolean (" + text + ")";
        case NULL -> "null";
      };
    }
  }
}

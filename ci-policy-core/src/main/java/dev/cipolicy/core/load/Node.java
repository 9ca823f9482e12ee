package dev.cipolicy.core.load;

import dev.cipolicy.api.SourceLocation;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node of a parsed YAML or JSON document with the location where it starts: a mapping, a list or a scalar.
 * {@link TreeParser#parse} makes the tree; the policy loaders of this package and the workflow loader of
 * {@code ci-workflow} read it, so that every loader reports problems with the same file, line and column.
 */
public sealed interface Node permits Node.MapNode, Node.ListNode, Node.Scalar {

  /**
   * Where the node starts.
   *
   * @return the file, line and column
   */
  SourceLocation location();

  /**
   * What the node is, for "expected X, found Y" messages.
   *
   * @return e.g. {@code a mapping}, {@code an integer (3)}
   */
  String describe();

  /**
   * A key of a mapping with the location of the key itself.
   *
   * @param key the key
   * @param keyLocation where the key is written
   * @param value the key's value
   */
  record Entry(String key, SourceLocation keyLocation, Node value) {}

  /**
   * A mapping with keys in document order.
   *
   * @param location where the mapping starts
   * @param entries the entries by key, in document order (unmodifiable)
   */
  record MapNode(SourceLocation location, Map<String, Entry> entries) implements Node {
    /** Keeps an unmodifiable copy of the entries, in their order. */
    public MapNode {
      entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }

    @Override
    public String describe() {
      return "a mapping";
    }

    Map<String, Entry> view() {
      return entries;
    }
  }

  /**
   * A sequence.
   *
   * @param location where the list starts
   * @param items the items in order (unmodifiable)
   */
  record ListNode(SourceLocation location, List<Node> items) implements Node {
    /** Keeps an unmodifiable copy of the items. */
    public ListNode {
      items = List.copyOf(items);
    }

    @Override
    public String describe() {
      return "a list";
    }
  }

  /**
   * A scalar and the kind of token it was.
   *
   * @param location where the scalar starts
   * @param kind the kind of token
   * @param text the scalar as written ({@code null} for a null)
   */
  record Scalar(SourceLocation location, Kind kind, String text) implements Node {
    /** The kind of token a scalar was. */
    public enum Kind {
      /** A string, quoted or plain. */
      STRING,
      /** An integer, in any of YAML's integer forms. */
      INTEGER,
      /** A number with a fraction or an exponent. */
      DECIMAL,
      /** A boolean, in any of YAML 1.1's boolean forms. */
      BOOLEAN,
      /** A null. */
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

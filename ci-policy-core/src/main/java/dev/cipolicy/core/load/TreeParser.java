package dev.cipolicy.core.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Turns YAML or JSON text into a located {@link Node} tree. Duplicate keys, YAML aliases and merge keys
 * are errors, and the {@link DocumentLimits} are checked before the text reaches a parser.
 *
 * <p>Aliases are rejected rather than resolved: the YAML token stream this parser reads reports an alias
 * by its anchor's name and loses the anchors of scalar values, so an alias could only be read as a
 * different document. Anchors without aliases do not change the document and are accepted.
 */
final class TreeParser {
  private static final int MAX_DEPTH = DocumentLimits.MAX_NESTING_DEPTH;
  private static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
      .maxNestingDepth(MAX_DEPTH)
      .maxDocumentLength(DocumentLimits.MAX_DOCUMENT_CHARS + 1L)
      .build();
  private static final JsonFactory JSON = JsonFactory.builder().streamReadConstraints(CONSTRAINTS).build();
  private static final YAMLFactory YAML = YAMLFactory.builder()
      .streamReadConstraints(CONSTRAINTS)
      .loaderOptions(loaderOptions())
      .build();

  private static LoaderOptions loaderOptions() {
    LoaderOptions o = new LoaderOptions();
    // Belt and braces: checkLimits and read() run first with clearer messages. Duplicate keys and
    // aliases are left to read(), which reports them with the key's location.
    o.setCodePointLimit(DocumentLimits.MAX_DOCUMENT_CHARS + 1);
    o.setNestingDepthLimit(MAX_DEPTH + 1);
    return o;
  }

  private final String source;

  private TreeParser(String source) {
    this.source = source;
  }

  static Node parse(String source, String text, DocumentFormat format) {
    return new TreeParser(source).parseDocument(text, format);
  }

  private Node parseDocument(String text, DocumentFormat format) {
    checkLimits(text, format);
    JsonFactory factory = format == DocumentFormat.JSON ? JSON : YAML;
    try (JsonParser p = factory.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw fail(new SourceLocation(source, 1, 1), "the document is empty; expected a policy mapping");
      }
      Node root = read(p, first, 0);
      JsonToken trailing = p.nextToken();
      if (trailing != null) {
        throw fail(loc(p.currentTokenLocation()), "unexpected content after the end of the document");
      }
      return root;
    } catch (JsonProcessingException e) {
      JsonLocation l = e.getLocation();
      SourceLocation where = l == null ? new SourceLocation(source, 1, 1) : loc(l);
      String msg = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
      throw fail(where, "malformed " + format.displayName() + ": " + firstLine(msg));
    } catch (IOException e) {
      throw fail(new SourceLocation(source, 1, 1), "unreadable " + format.displayName() + ": " + e.getMessage());
    } catch (RuntimeException e) {
      if (e instanceof InvalidPolicyException ipe) {
        throw ipe;
      }
      // The YAML engine signals some malformed input (bad tags, aliases) with unchecked exceptions.
      throw fail(new SourceLocation(source, 1, 1),
          "malformed " + format.displayName() + ": " + firstLine(String.valueOf(e.getMessage())));
    }
  }

  /** Fails on a document longer than the limit or, in YAML, on a line longer than the line limit. */
  private void checkLimits(String text, DocumentFormat format) {
    if (text.length() > DocumentLimits.MAX_DOCUMENT_CHARS) {
      throw fail(new SourceLocation(source, 1, 1), "the document is " + text.length()
          + " characters long; at most " + DocumentLimits.MAX_DOCUMENT_CHARS + " are accepted");
    }
    if (format != DocumentFormat.YAML) {
      return;
    }
    int line = 1;
    int start = 0;
    for (int i = 0; i <= text.length(); i++) {
      if (i == text.length() || text.charAt(i) == '\n') {
        if (i - start > DocumentLimits.MAX_YAML_LINE_CHARS) {
          throw fail(new SourceLocation(source, line, 1), "the line is " + (i - start)
              + " characters long; YAML lines are limited to " + DocumentLimits.MAX_YAML_LINE_CHARS
              + " characters (a JSON document, named *.json, has no line limit)");
        }
        line++;
        start = i + 1;
      }
    }
  }

  private Node read(JsonParser p, JsonToken token, int depth) throws IOException {
    SourceLocation at = loc(p.currentTokenLocation());
    if (depth > MAX_DEPTH) {
      throw fail(at, "the document nests deeper than " + MAX_DEPTH + " levels");
    }
    if (p instanceof YAMLParser y && y.isCurrentAlias()) {
      throw fail(at, "YAML alias *" + shown(p.getText()) + " is not supported (aliases and merge keys"
          + " are rejected so the document means what it shows); write the value out");
    }
    switch (token) {
      case START_OBJECT: {
        LinkedHashMap<String, Node.Entry> entries = new LinkedHashMap<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          SourceLocation keyAt = loc(p.currentTokenLocation());
          if (key.equals("<<") && p instanceof YAMLParser) {
            throw fail(keyAt, "YAML merge key '<<' is not supported; write the fields out");
          }
          Node value = read(p, p.nextToken(), depth + 1);
          Node.Entry previous = entries.put(key, new Node.Entry(key, keyAt, value));
          if (previous != null) {
            throw fail(keyAt, "duplicate key '" + key + "' (first defined at line "
                + previous.keyLocation().line() + ")");
          }
        }
        if (t != JsonToken.END_OBJECT) {
          throw fail(at, "unterminated mapping");
        }
        return new Node.MapNode(at, entries);
      }
      case START_ARRAY: {
        List<Node> items = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
          if (t == null) {
            throw fail(at, "unterminated list");
          }
          items.add(read(p, t, depth + 1));
        }
        return new Node.ListNode(at, items);
      }
      case VALUE_STRING:
        return new Node.Scalar(at, Node.Scalar.Kind.STRING, p.getText());
      case VALUE_NUMBER_INT:
        return new Node.Scalar(at, Node.Scalar.Kind.INTEGER, p.getText());
      case VALUE_NUMBER_FLOAT:
        return new Node.Scalar(at, Node.Scalar.Kind.DECIMAL, p.getText());
      case VALUE_TRUE:
      case VALUE_FALSE:
        return new Node.Scalar(at, Node.Scalar.Kind.BOOLEAN, p.getText());
      case VALUE_NULL:
        return new Node.Scalar(at, Node.Scalar.Kind.NULL, "null");
      default:
        throw fail(at, "unsupported " + token + " token");
    }
  }

  private SourceLocation loc(JsonLocation l) {
    return new SourceLocation(source, Math.max(1, l.getLineNr()), Math.max(1, l.getColumnNr()));
  }

  /** A name for a message: at most 40 characters, control characters shown as {@code ?}. */
  static String shown(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length() && i < 40; i++) {
      char c = s.charAt(i);
      sb.append(Character.isISOControl(c) ? '?' : c);
    }
    return s.length() > 40 ? sb + "..." : sb.toString();
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }

  private static InvalidPolicyException fail(SourceLocation at, String message) {
    return new InvalidPolicyException(List.of(new PolicyProblem(Optional.of(at), "", message)));
  }
}

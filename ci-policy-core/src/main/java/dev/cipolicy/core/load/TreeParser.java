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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * The reader of YAML and JSON text into a located {@link Node} tree, shared by every document loader (policy,
 * registrations, gate declarations, and {@code ci-workflow}'s workflow files). Duplicate keys, YAML aliases
 * and merge keys are errors, and the {@link DocumentLimits} are checked before the text reaches a parser.
 *
 * <p>Aliases are rejected rather than resolved: the YAML token stream this parser reads reports an alias
 * by its anchor's name and loses the anchors of scalar values, so an alias could only be read as a
 * different document. Anchors without aliases do not change the document and are accepted.
 */
public final class TreeParser {
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

  /**
   * Parses a document into its tree.
   *
   * @param source the name used in locations and messages, typically the file path
   * @param text the document text, at most {@link DocumentLimits#MAX_DOCUMENT_CHARS} characters
   * @param format YAML or JSON
   * @return the root node
   * @throws InvalidPolicyException with one located problem, for text beyond the limits, malformed text, a
   *     duplicate key, an alias or a merge key
   */
  public static Node parse(String source, String text, DocumentFormat format) {
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
      if (format == DocumentFormat.YAML) {
        YamlProblem yaml = YamlProblem.of(msg);
        throw fail(yaml.line() > 0 ? new SourceLocation(source, yaml.line(), yaml.column()) : where,
            "malformed " + format.displayName() + ": " + yaml.text());
      }
      throw fail(where, "malformed " + format.displayName() + ": " + firstLine(msg));
    } catch (IOException e) {
      throw fail(new SourceLocation(source, 1, 1), "unreadable " + format.displayName() + ": " + e.getMessage());
    } catch (RuntimeException e) {
      if (e instanceof InvalidPolicyException ipe) {
        throw ipe;
      }
      // The YAML engine signals some malformed input (bad tags, aliases) with unchecked exceptions.
      YamlProblem yaml = YamlProblem.of(String.valueOf(e.getMessage()));
      throw fail(new SourceLocation(source, Math.max(1, yaml.line()), Math.max(1, yaml.column())),
          "malformed " + format.displayName() + ": " + yaml.text());
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

  /**
   * A name from a document made safe to quote in a one-line message: at most 40 characters, control characters
   * shown as {@code ?}.
   *
   * @param s the name as written
   * @return the name to quote
   */
  public static String shown(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length() && i < 40; i++) {
      char c = s.charAt(i);
      sb.append(Character.isISOControl(c) ? '?' : c);
    }
    return s.length() > 40 ? sb + "..." : sb.toString();
  }

  /**
   * A YAML engine's multi-line error message made one line: the problem (e.g. {@code expected ',' or ']', but got
   * <stream end>}) with its location, after the context it arose in (e.g. {@code while parsing a flow sequence})
   * and where that started. The engine writes each part as an unindented line followed by
   * {@code  in 'reader', line L, column C:} and the quoted source line with a caret.
   *
   * @param text the message on one line
   * @param line the problem's line (1-based), 0 when the message names none
   * @param column the problem's column (1-based)
   */
  record YamlProblem(String text, int line, int column) {
    private static final Pattern MARK =
        Pattern.compile("^\\s*in '[^']*', line (\\d{1,9}), column (\\d{1,9}):?\\s*$");

    static YamlProblem of(String message) {
      List<String> parts = new ArrayList<>();
      List<int[]> marks = new ArrayList<>();
      for (String l : message.split("\n", -1)) {
        Matcher m = MARK.matcher(l);
        if (m.matches()) {
          while (marks.size() < parts.size()) {
            marks.add(new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))});
          }
        } else if (!l.isEmpty() && !Character.isWhitespace(l.charAt(0))) {
          parts.add(l.strip());
        }
      }
      if (parts.isEmpty()) {
        return new YamlProblem(firstLine(message), 0, 0);
      }
      String problem = parts.get(parts.size() - 1);
      int[] at = marks.size() == parts.size() ? marks.get(parts.size() - 1) : new int[] {0, 0};
      StringBuilder sb = new StringBuilder(problem);
      if (at[0] > 0) {
        sb.append(" at line ").append(at[0]).append(", column ").append(at[1]);
      }
      if (parts.size() > 1) {
        sb.append(" (").append(String.join("; ", parts.subList(0, parts.size() - 1)));
        if (!marks.isEmpty() && marks.get(0) != at) {
          sb.append(" started at line ").append(marks.get(0)[0]).append(", column ").append(marks.get(0)[1]);
        }
        sb.append(')');
      }
      return new YamlProblem(sb.toString(), at[0], at[1]);
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }

  private static InvalidPolicyException fail(SourceLocation at, String message) {
    return new InvalidPolicyException(List.of(new PolicyProblem(Optional.of(at), "", message)));
  }
}

package dev.cipolicy.core.load;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The typed, located reads over a {@link Node} tree that the loaders share. Every problem is recorded with its
 * location and field path and reading continues, so that one load reports every problem in the document. A
 * value that breaks one of its own rules (see {@link #build}) is a problem of its own kind, reported when the
 * document has no problem of shape or type.
 *
 * <p>Public for the loaders of other modules (the workflow loader of {@code ci-workflow}): {@link #integer} and
 * {@link #problems()}; the rest serves this package's loaders.
 */
public final class DocReader {
  /** A reader with no problem recorded yet. */
  public DocReader() {}

  private final List<PolicyProblem> problems = new ArrayList<>();
  private final List<PolicyProblem> valueProblems = new ArrayList<>();
  private final Map<String, SourceLocation> locations = new HashMap<>();

  /**
   * The problems of shape and type recorded so far: a wrong type, an unknown or missing field.
   *
   * @return the problems in reading order (the reader's own list)
   */
  public List<PolicyProblem> problems() {
    return problems;
  }

  /** The rules broken by values read from well-typed fields (see {@link #build}), in reading order. */
  List<PolicyProblem> valueProblems() {
    return valueProblems;
  }

  /**
   * Builds a value read at {@code path}. A rule the value breaks becomes a value problem located at the
   * field's path: {@code path} followed by the field in the document's snake case ({@code gpuMaxParallel}
   * is {@code gpu_max_parallel}, {@code nonRetriable[2]} is {@code non_retriable[2]}), or by the key that
   * {@code keys} gives the field; a key of {@code ""} (the name of an entry, which is its key) and a rule
   * about the whole value point at {@code path} itself.
   */
  <T> Optional<T> build(String path, Map<String, String> keys, Supplier<T> build) {
    try {
      return Optional.of(build.get());
    } catch (InvalidValueException e) {
      for (InvalidValueException.Problem p : e.problems()) {
        String key = p.field().isEmpty() ? "" : keys.getOrDefault(p.field(), snakeCase(p.field()));
        String at = key.isEmpty() ? path : child(path, key);
        valueProblems.add(new PolicyProblem(locate(at), at, p.message()));
      }
      return Optional.empty();
    }
  }

  private static String snakeCase(String field) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (Character.isUpperCase(c)) {
        sb.append('_').append(Character.toLowerCase(c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /** The location of a path, or of its nearest located ancestor. */
  Optional<SourceLocation> locate(String path) {
    String p = path;
    while (true) {
      SourceLocation l = locations.get(p);
      if (l != null) {
        return Optional.of(l);
      }
      int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      if (cut <= 0) {
        return Optional.ofNullable(locations.get(""));
      }
      p = p.substring(0, cut);
    }
  }

  void problem(SourceLocation at, String path, String message) {
    problems.add(new PolicyProblem(Optional.of(at), path, message));
  }

  /**
   * Records where a scalar value starts; it replaces the location of its key. Containers keep the
   * location of their key (the name a problem is about) and fall back to where they start.
   */
  void mark(String path, SourceLocation at) {
    locations.put(path, at);
  }

  private void markKey(String path, SourceLocation at) {
    locations.putIfAbsent(path, at);
  }

  static String child(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  static String index(String path, int i) {
    return path + "[" + i + "]";
  }

  /** A mapping whose keys are all checked against the allowed set. */
  Optional<Fields> fields(Node node, String path, Set<String> allowed) {
    markKey(path, node.location());
    if (!(node instanceof Node.MapNode map)) {
      problem(node.location(), path, "expected a mapping, found " + node.describe());
      return Optional.empty();
    }
    for (Node.Entry e : map.view().values()) {
      markKey(child(path, e.key()), e.keyLocation());
      if (!allowed.contains(e.key())) {
        problem(e.keyLocation(), child(path, e.key()),
            "unknown field '" + e.key() + "'; expected one of " + new TreeSet<>(allowed));
      }
    }
    return Optional.of(new Fields(map, path));
  }

  /** A mapping with free keys (names of labels, cadences, suites...). */
  Optional<Node.MapNode> namedMap(Node node, String path) {
    markKey(path, node.location());
    if (!(node instanceof Node.MapNode map)) {
      problem(node.location(), path, "expected a mapping of names, found " + node.describe());
      return Optional.empty();
    }
    for (Node.Entry e : map.view().values()) {
      mark(child(path, e.key()), e.keyLocation());
    }
    return Optional.of(map);
  }

  Optional<Node.ListNode> list(Node node, String path) {
    markKey(path, node.location());
    if (!(node instanceof Node.ListNode list)) {
      problem(node.location(), path, "expected a list, found " + node.describe());
      return Optional.empty();
    }
    return Optional.of(list);
  }

  Optional<String> string(Node node, String path) {
    mark(path, node.location());
    if (node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
      return Optional.of(s.text());
    }
    problem(node.location(), path, "expected a string, found " + node.describe()
        + (node instanceof Node.Scalar ? " (quote it)" : ""));
    return Optional.empty();
  }

  Optional<Boolean> bool(Node node, String path) {
    mark(path, node.location());
    if (node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.BOOLEAN) {
      if (s.text().equalsIgnoreCase("true") || s.text().equalsIgnoreCase("false")) {
        return Optional.of(Boolean.parseBoolean(s.text()));
      }
      problem(node.location(), path, "expected true or false, found '" + s.text()
          + "' (YAML 1.1 reads it as a boolean; write true or false)");
      return Optional.empty();
    }
    problem(node.location(), path, "expected true or false, found " + node.describe());
    return Optional.empty();
  }

  /**
   * An integer written in plain decimal: an optional {@code -}, then {@code 0} or digits without a leading
   * zero. YAML's other integer forms ({@code 0x10}, {@code 0o17}, {@code 0b101}, {@code 1_000}, {@code +5},
   * {@code 017}) are rejected, because YAML 1.1 and 1.2 read some of them differently.
   *
   * @param node the node to read
   * @param path the field path, for the problem
   * @return the integer, or empty with a problem recorded
   */
  public Optional<Integer> integer(Node node, String path) {
    mark(path, node.location());
    if (node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.INTEGER) {
      if (!isDecimalInteger(s.text())) {
        problem(node.location(), path, notDecimal(s.text(), INTEGER_FORMS));
        return Optional.empty();
      }
      try {
        return Optional.of(Integer.parseInt(s.text()));
      } catch (NumberFormatException e) {
        problem(node.location(), path, "integer " + s.text() + " is out of range");
        return Optional.empty();
      }
    }
    if (looksNumeric(node) || (node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.DECIMAL
        && !isDecimalNumber(s.text()))) {
      problem(node.location(), path, notDecimal(((Node.Scalar) node).text(), INTEGER_FORMS));
      return Optional.empty();
    }
    problem(node.location(), path, "expected an integer, found " + node.describe());
    return Optional.empty();
  }

  /**
   * A finite number, integer or decimal, in plain decimal notation ({@code 30}, {@code -2}, {@code 1.5},
   * {@code .5}, {@code 1e3}); booleans, strings and YAML's {@code .inf}, {@code .nan}, {@code 0x10},
   * {@code 1_000} and {@code +5} forms are rejected.
   */
  Optional<Double> number(Node node, String path) {
    mark(path, node.location());
    if (node instanceof Node.Scalar s
        && (s.kind() == Node.Scalar.Kind.INTEGER || s.kind() == Node.Scalar.Kind.DECIMAL)) {
      if (!isDecimalNumber(s.text())) {
        problem(node.location(), path, notDecimal(s.text(), NUMBER_FORMS));
        return Optional.empty();
      }
      double v = Double.parseDouble(s.text());
      if (Double.isFinite(v)) {
        return Optional.of(v);
      }
      problem(node.location(), path, "number " + s.text() + " is not finite");
      return Optional.empty();
    }
    if (looksNumeric(node)) {
      problem(node.location(), path, notDecimal(((Node.Scalar) node).text(), NUMBER_FORMS));
      return Optional.empty();
    }
    problem(node.location(), path, "expected a number, found " + node.describe());
    return Optional.empty();
  }

  private static final String INTEGER_FORMS = "an integer in plain decimal such as 30 or -2";
  private static final String NUMBER_FORMS = "a number in plain decimal such as 30, 1.5, .5 or 1e3";

  private static String notDecimal(String text, String expected) {
    return TreeParser.shown(text) + " is not a decimal number (expected " + expected
        + "; YAML forms such as 0x10, 0o17, 1_000, +5, 017, .inf and .nan are not accepted)";
  }

  /**
   * A string that YAML did not read as a number but that starts like one ({@code 0o17}, {@code +.5},
   * {@code 190:20:30}); a string that is itself a plain decimal number was quoted and is only a string.
   */
  private static boolean looksNumeric(Node node) {
    if (node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && !s.text().isEmpty()
        && s.text().length() <= 40 && !isDecimalNumber(s.text())) {
      String t = s.text();
      char c = t.charAt(0);
      boolean start = (c >= '0' && c <= '9') || ((c == '+' || c == '-' || c == '.') && t.length() > 1);
      return start && t.chars().allMatch(ch -> ch > ' ' && ch < 127);
    }
    return false;
  }

  /** {@code -?(0|[1-9][0-9]*)}, checked without a regular expression. */
  static boolean isDecimalInteger(String t) {
    int i = t.startsWith("-") ? 1 : 0;
    int end = digits(t, i);
    if (end == i || end != t.length()) {
      return false;
    }
    return t.charAt(i) != '0' || end == i + 1;
  }

  /**
   * {@code -?((0|[1-9][0-9]*)(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?}: YAML 1.2's decimal notation
   * without a plus sign or a leading zero, checked without a regular expression.
   */
  static boolean isDecimalNumber(String t) {
    int i = t.startsWith("-") ? 1 : 0;
    int intEnd = digits(t, i);
    if (intEnd > i + 1 && t.charAt(i) == '0') {
      return false;
    }
    int j = intEnd;
    boolean fraction = false;
    if (j < t.length() && t.charAt(j) == '.') {
      int fracEnd = digits(t, j + 1);
      fraction = fracEnd > j + 1;
      j = fracEnd;
    }
    if (intEnd == i && !fraction) {
      return false;
    }
    if (j < t.length() && (t.charAt(j) == 'e' || t.charAt(j) == 'E')) {
      int k = j + 1;
      if (k < t.length() && (t.charAt(k) == '+' || t.charAt(k) == '-')) {
        k++;
      }
      int expEnd = digits(t, k);
      if (expEnd == k) {
        return false;
      }
      j = expEnd;
    }
    return j == t.length();
  }

  private static int digits(String t, int from) {
    int i = from;
    while (i < t.length() && t.charAt(i) >= '0' && t.charAt(i) <= '9') {
      i++;
    }
    return i;
  }

  List<String> stringList(Node node, String path) {
    List<String> out = new ArrayList<>();
    list(node, path).ifPresent(l -> {
      for (int i = 0; i < l.items().size(); i++) {
        string(l.items().get(i), index(path, i)).ifPresent(out::add);
      }
    });
    return out;
  }

  List<Integer> intList(Node node, String path) {
    List<Integer> out = new ArrayList<>();
    list(node, path).ifPresent(l -> {
      for (int i = 0; i < l.items().size(); i++) {
        integer(l.items().get(i), index(path, i)).ifPresent(out::add);
      }
    });
    return out;
  }

  /** The fields of one mapping, read by name. */
  final class Fields {
    private final Node.MapNode map;
    private final String path;

    Fields(Node.MapNode map, String path) {
      this.map = map;
      this.path = path;
    }

    String path() {
      return path;
    }

    String path(String key) {
      return child(path, key);
    }

    Optional<Node> node(String key) {
      Node.Entry e = map.view().get(key);
      return e == null ? Optional.empty() : Optional.of(e.value());
    }

    Optional<Node> required(String key) {
      Optional<Node> n = node(key);
      if (n.isEmpty()) {
        problem(map.location(), path, "missing required field '" + key + "'");
      }
      return n;
    }

    Optional<String> string(String key) {
      return node(key).flatMap(n -> DocReader.this.string(n, path(key)));
    }

    Optional<String> requiredString(String key) {
      return required(key).flatMap(n -> DocReader.this.string(n, path(key)));
    }

    Optional<Boolean> bool(String key) {
      return node(key).flatMap(n -> DocReader.this.bool(n, path(key)));
    }

    Optional<Boolean> requiredBool(String key) {
      return required(key).flatMap(n -> DocReader.this.bool(n, path(key)));
    }

    Optional<Integer> integer(String key) {
      return node(key).flatMap(n -> DocReader.this.integer(n, path(key)));
    }

    Optional<Integer> requiredInteger(String key) {
      return required(key).flatMap(n -> DocReader.this.integer(n, path(key)));
    }

    List<String> stringList(String key) {
      return node(key).map(n -> DocReader.this.stringList(n, path(key))).orElse(List.of());
    }

    List<Integer> intList(String key) {
      return node(key).map(n -> DocReader.this.intList(n, path(key))).orElse(List.of());
    }
  }
}

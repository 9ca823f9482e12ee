package dev.cipolicy.workflow.load;

import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.load.DocReader;
import dev.cipolicy.core.load.Node;
import dev.cipolicy.workflow.Expression;
import dev.cipolicy.workflow.InvalidExpressionException;
import dev.cipolicy.workflow.InvalidWorkflowException;
import dev.cipolicy.workflow.WorkflowWarning;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The typed, located reads of one workflow file over core's {@link Node} tree, shared by the section readers.
 * Every problem is recorded with its location and field path and reading goes on, so that one load reports
 * every problem of the file; the warnings are what the model does not follow.
 */
final class WorkflowReader {
  private final List<PolicyProblem> problems = new ArrayList<>();
  private final List<WorkflowWarning> warnings = new ArrayList<>();

  /** The problems recorded so far, in reading order. */
  int problemCount() {
    return problems.size();
  }

  List<WorkflowWarning> warnings() {
    return warnings;
  }

  void problem(SourceLocation at, String path, String message) {
    problems.add(new PolicyProblem(Optional.of(at), path, message));
  }

  void problems(List<PolicyProblem> more) {
    problems.addAll(more);
  }

  void warn(SourceLocation at, String job, String message) {
    warnings.add(new WorkflowWarning(at, job, message));
  }

  /** Throws every problem recorded, if there is one. */
  void failOnProblems() {
    if (!problems.isEmpty()) {
      throw new InvalidWorkflowException(problems);
    }
  }

  /** A string scalar holding a {@code ${{ }}} expression. */
  static boolean isExpression(Node n) {
    return n instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING && s.text().contains("${{");
  }

  /** Checks the {@code ${{ }}} parts of a value; a bad one is a located problem. */
  boolean expression(String text, SourceLocation at, String path) {
    if (!text.contains("${{")) {
      return true;
    }
    try {
      Expression.parseTemplate(text);
      return true;
    } catch (InvalidExpressionException x) {
      problem(at, path, x.getMessage());
      return false;
    }
  }

  Optional<String> scalar(Node.MapNode m, String key, String path) {
    Node.Entry e = m.entries().get(key);
    return e == null ? Optional.empty() : text(e.value(), path);
  }

  /** A scalar as text: strings, numbers and booleans as written; null and containers are problems. */
  Optional<String> text(Node n, String path) {
    if (n instanceof Node.Scalar s && s.kind() != Node.Scalar.Kind.NULL) {
      return Optional.of(s.text());
    }
    problem(n.location(), path, "expected a value, found " + n.describe());
    return Optional.empty();
  }

  /** A string or a list of strings. */
  List<String> strings(Node n, String path) {
    List<String> out = new ArrayList<>();
    if (n instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
      out.add(s.text());
    } else if (n instanceof Node.ListNode l) {
      for (int i = 0; i < l.items().size(); i++) {
        Node item = l.items().get(i);
        if (item instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
          out.add(s.text());
        } else {
          problem(item.location(), path + "[" + i + "]", "expected a string, found " + item.describe());
        }
      }
    } else {
      problem(n.location(), path, "expected a string or a list of strings, found " + n.describe());
    }
    return out;
  }

  Optional<Boolean> bool(Node n, String path) {
    if (n instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.BOOLEAN
        && (s.text().equals("true") || s.text().equals("false"))) {
      return Optional.of(Boolean.parseBoolean(s.text()));
    }
    problem(n.location(), path, "expected true or false, found " + n.describe());
    return Optional.empty();
  }

  /** An integer in plain decimal, read as policy documents read one. */
  Optional<Integer> integer(Node n, String path) {
    DocReader r = new DocReader();
    Optional<Integer> v = r.integer(n, path);
    problems.addAll(r.problems());
    return v;
  }

  /** A mapping of names to scalars ({@code with:}, {@code env:}), as text; absent is empty. */
  Map<String, String> textMap(Node.MapNode m, String key, String path) {
    Map<String, String> out = new LinkedHashMap<>();
    Node.Entry e = m.entries().get(key);
    if (e == null || isNull(e.value())) {
      return out;
    }
    if (e.value() instanceof Node.MapNode vm) {
      for (Node.Entry x : vm.entries().values()) {
        text(x.value(), path + "." + x.key()).ifPresent(t -> out.put(x.key(), t));
      }
    } else if (isExpression(e.value())) {
      out.put("", ((Node.Scalar) e.value()).text());
    } else {
      problem(e.value().location(), path, "expected a mapping of names to values, found " + e.value().describe());
    }
    return out;
  }

  /** Null, or an empty plain value ({@code push:} with nothing after it). */
  static boolean isNull(Node n) {
    return n instanceof Node.Scalar s && (s.kind() == Node.Scalar.Kind.NULL
        || (s.kind() == Node.Scalar.Kind.STRING && s.text().isEmpty()));
  }
}

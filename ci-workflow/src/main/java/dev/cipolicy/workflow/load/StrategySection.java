package dev.cipolicy.workflow.load;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.load.Node;
import dev.cipolicy.workflow.ExprValue;
import dev.cipolicy.workflow.Matrix;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a job's {@code strategy:}: {@code fail-fast}, {@code max-parallel} (a plain decimal integer or a
 * {@code ${{ }}} expression) and {@code matrix} — legs counted from a literal matrix with
 * {@code include}/{@code exclude} (at most {@link WorkflowLoader#MAX_MATRIX_LEGS}), or dynamic for a
 * {@code ${{ }}} matrix or key.
 */
final class StrategySection {
  private final WorkflowReader r;

  StrategySection(WorkflowReader r) {
    this.r = r;
  }

  /** What {@code fail-fast} and {@code max-parallel} say about every leg of the matrix. */
  private record Limits(boolean failFast, Optional<Integer> maxParallel, Optional<String> maxParallelExpression,
      SourceLocation at) {
    Matrix of(List<Map<String, ExprValue>> legs) {
      return with(new Matrix(legs, failFast, maxParallel, at));
    }

    Matrix dynamic(String expression) {
      return with(Matrix.dynamic(expression, failFast, maxParallel, at));
    }

    private Matrix with(Matrix m) {
      return maxParallelExpression.map(m::withMaxParallelExpression).orElse(m);
    }
  }

  /** The matrix of a {@code strategy} entry; empty with a problem when it is malformed. */
  Optional<Matrix> read(Node.Entry strategy, String path) {
    if (!(strategy.value() instanceof Node.MapNode m)) {
      r.problem(strategy.value().location(), path, "expected a mapping (matrix, fail-fast, max-parallel), found "
          + strategy.value().describe());
      return Optional.empty();
    }
    boolean failFast = failFast(m, path);
    Optional<Limits> limits = limits(m, path, failFast, strategy.keyLocation());
    if (limits.isEmpty()) {
      return Optional.empty();
    }
    Node.Entry matrix = m.entries().get("matrix");
    if (matrix == null) {
      return Optional.of(limits.get().of(List.of(Map.of())));
    }
    Node mv = matrix.value();
    if (WorkflowReader.isExpression(mv)) {
      String text = ((Node.Scalar) mv).text();
      return r.expression(text, mv.location(), path + ".matrix")
          ? Optional.of(limits.get().dynamic(text)) : Optional.empty();
    }
    if (!(mv instanceof Node.MapNode mm)) {
      r.problem(mv.location(), path + ".matrix", "expected a mapping of matrix keys or a ${{ }} expression, found "
          + mv.describe());
      return Optional.empty();
    }
    return literal(mm, path, limits.get());
  }

  private boolean failFast(Node.MapNode m, String path) {
    Node.Entry ff = m.entries().get("fail-fast");
    if (ff == null) {
      return true;
    }
    if (WorkflowReader.isExpression(ff.value())) {
      r.expression(((Node.Scalar) ff.value()).text(), ff.value().location(), path + ".fail-fast");
      return true;
    }
    return r.bool(ff.value(), path + ".fail-fast").orElse(true);
  }

  /** The limits with {@code max-parallel}; empty with a problem for a bad expression or a value below 1. */
  private Optional<Limits> limits(Node.MapNode m, String path, boolean failFast, SourceLocation at) {
    Node.Entry mp = m.entries().get("max-parallel");
    if (mp == null) {
      return Optional.of(new Limits(failFast, Optional.empty(), Optional.empty(), at));
    }
    if (WorkflowReader.isExpression(mp.value())) {
      String text = ((Node.Scalar) mp.value()).text();
      return r.expression(text, mp.value().location(), path + ".max-parallel")
          ? Optional.of(new Limits(failFast, Optional.empty(), Optional.of(text), at)) : Optional.empty();
    }
    Optional<Integer> maxParallel = r.integer(mp.value(), path + ".max-parallel");
    if (maxParallel.isPresent() && maxParallel.get() < 1) {
      r.problem(mp.value().location(), path + ".max-parallel", "must be at least 1, got " + maxParallel.get());
      return Optional.empty();
    }
    return Optional.of(new Limits(failFast, maxParallel, Optional.empty(), at));
  }

  /** A literal matrix mapping: its keys, {@code include} and {@code exclude}, or a dynamic key. */
  private Optional<Matrix> literal(Node.MapNode mm, String path, Limits limits) {
    Legs legs = new Legs();
    for (Node.Entry e : mm.entries().values()) {
      String kp = path + ".matrix." + e.key();
      Node v = e.value();
      if (WorkflowReader.isExpression(v)) {
        String text = ((Node.Scalar) v).text();
        if (r.expression(text, v.location(), kp)) {
          legs.dynamic = Optional.of(legs.dynamic.map(d -> d + "; ").orElse("") + e.key() + ": " + text);
        }
      } else if (e.key().equals("include") || e.key().equals("exclude")) {
        combinations(v, kp, e.key().equals("include") ? legs.include : legs.exclude);
      } else if (v instanceof Node.ListNode l) {
        legs.keys.add(e.key());
        List<ExprValue> vs = new ArrayList<>();
        l.items().forEach(x -> vs.add(value(x)));
        legs.values.add(vs);
      } else {
        r.problem(v.location(), kp, "expected a list of values or a ${{ }} expression, found " + v.describe());
      }
    }
    if (legs.dynamic.isPresent()) {
      return Optional.of(limits.dynamic(legs.dynamic.get()));
    }
    if (legs.tooMany()) {
      r.problem(limits.at(), path + ".matrix", "the matrix has more than " + WorkflowLoader.MAX_MATRIX_LEGS
          + " combinations; GitHub runs at most " + WorkflowLoader.MAX_MATRIX_LEGS + " jobs per matrix");
      return Optional.empty();
    }
    List<Map<String, ExprValue>> all = legs.legs();
    if (all.isEmpty()) {
      r.problem(limits.at(), path + ".matrix", "the matrix has no combination (every one is excluded, or no key"
          + " has a value); expected at least one");
      return Optional.empty();
    }
    return Optional.of(limits.of(all));
  }

  /** The mappings of an {@code include} or {@code exclude} list. */
  private void combinations(Node v, String kp, List<Map<String, ExprValue>> into) {
    if (!(v instanceof Node.ListNode l)) {
      r.problem(v.location(), kp, "expected a list of mappings, found " + v.describe());
      return;
    }
    for (int i = 0; i < l.items().size(); i++) {
      Node item = l.items().get(i);
      if (item instanceof Node.MapNode im) {
        Map<String, ExprValue> combo = new LinkedHashMap<>();
        im.entries().values().forEach(x -> combo.put(x.key(), value(x.value())));
        into.add(combo);
      } else {
        r.problem(item.location(), kp + "[" + i + "]", "expected a mapping of matrix values, found "
            + item.describe());
      }
    }
  }

  /** The parts of a literal matrix, and the legs GitHub makes of them. */
  private static final class Legs {
    Optional<String> dynamic = Optional.empty();
    final List<String> keys = new ArrayList<>();
    final List<List<ExprValue>> values = new ArrayList<>();
    final List<Map<String, ExprValue>> include = new ArrayList<>();
    final List<Map<String, ExprValue>> exclude = new ArrayList<>();

    /** The product of the keys' values (0 without a key), saturating past the limit. */
    long product() {
      long product = keys.isEmpty() ? 0 : 1;
      for (List<ExprValue> vs : values) {
        product *= vs.size();
        if (product > WorkflowLoader.MAX_MATRIX_LEGS) {
          break;
        }
      }
      return product;
    }

    boolean tooMany() {
      return product() + include.size() > WorkflowLoader.MAX_MATRIX_LEGS;
    }

    /** The cross product of the keys, without the excluded legs, with the included values merged or added. */
    List<Map<String, ExprValue>> legs() {
      List<Map<String, ExprValue>> legs = new ArrayList<>();
      if (product() > 0) {
        legs.add(new LinkedHashMap<>());
        for (int k = 0; k < keys.size(); k++) {
          List<Map<String, ExprValue>> next = new ArrayList<>();
          for (Map<String, ExprValue> leg : legs) {
            for (ExprValue v : values.get(k)) {
              Map<String, ExprValue> n = new LinkedHashMap<>(leg);
              n.put(keys.get(k), v);
              next.add(n);
            }
          }
          legs = next;
        }
      }
      legs.removeIf(leg -> exclude.stream().anyMatch(x -> x.entrySet().stream()
          .allMatch(kv -> kv.getValue().equals(leg.get(kv.getKey())))));
      include(legs);
      return legs;
    }

    private void include(List<Map<String, ExprValue>> legs) {
      int base = legs.size();
      for (Map<String, ExprValue> inc : include) {
        boolean added = false;
        for (int i = 0; i < base; i++) {
          Map<String, ExprValue> leg = legs.get(i);
          boolean fits = inc.entrySet().stream()
              .allMatch(kv -> !keys.contains(kv.getKey()) || kv.getValue().equals(leg.get(kv.getKey())));
          if (fits) {
            leg.putAll(inc);
            added = true;
          }
        }
        if (!added) {
          legs.add(new LinkedHashMap<>(inc));
        }
      }
    }
  }

  private static ExprValue value(Node n) {
    if (n instanceof Node.Scalar s) {
      return switch (s.kind()) {
        case STRING -> new ExprValue.Str(s.text());
        case INTEGER, DECIMAL -> number(s.text());
        case BOOLEAN -> new ExprValue.Bool(Boolean.parseBoolean(s.text()));
        case NULL -> ExprValue.NULL;
      };
    } else if (n instanceof Node.ListNode l) {
      List<ExprValue> items = new ArrayList<>();
      l.items().forEach(x -> items.add(value(x)));
      return new ExprValue.Arr(items, false);
    }
    Map<String, ExprValue> entries = new LinkedHashMap<>();
    ((Node.MapNode) n).entries().values().forEach(e -> entries.put(e.key(), value(e.value())));
    return ExprValue.Obj.closed(entries);
  }

  private static ExprValue number(String text) {
    try {
      return new ExprValue.Num(Double.parseDouble(text));
    } catch (NumberFormatException e) {
      return new ExprValue.Str(text);
    }
  }
}

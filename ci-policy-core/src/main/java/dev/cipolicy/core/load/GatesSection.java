package dev.cipolicy.core.load;

import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.FailOnLevel;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.api.policy.Policy;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the {@code gates} section of a policy document, and gate declarations wherever they
 * appear. Types are checked here with locations; the gate rules (parameters {@code ≥ 0}, one up and
 * one down parameter, distinct non-negative steps) are static checks of the policy.
 *
 * <pre>{@code
 * gates:
 *   fail_on:                  # optional: cadence -> regression | error
 *     nightly: regression
 *   defaults:
 *     train/grad_norm:
 *       steps: all            # last | all | [0, 10, 20]
 *       constraint: {rel_up: .5, abs_floor_up: .1, rel_down: .8, abs_floor_down: .1}
 *       better: lower         # optional: lower | higher
 * }</pre>
 */
final class GatesSection {
  /** The root field of the section. */
  static final String FIELD = "gates";

  /** The keys of the section itself. */
  static final Set<String> SECTION_FIELDS = Set.of("fail_on", "defaults");
  /** The keys of a test's gate declaration. */
  static final Set<String> DECLARATION_FIELDS = Set.of("metric_key", "steps", "constraint", "better");
  /** The keys of a gate default (its metric key is the entry's key). */
  static final Set<String> DEFAULT_FIELDS = Set.of("steps", "constraint", "better");

  private GatesSection() {}

  static void read(DocReader r, DocReader.Fields root, Policy.Builder policy) {
    root.node(FIELD).flatMap(n -> r.fields(n, FIELD, SECTION_FIELDS)).ifPresent(g -> {
      g.node("fail_on").flatMap(n -> r.namedMap(n, g.path("fail_on"))).ifPresent(m -> {
        for (Node.Entry e : m.view().values()) {
          failOn(r, e.value(), DocReader.child(g.path("fail_on"), e.key()))
              .ifPresent(level -> policy.putGateFailOn(e.key(), level));
        }
      });
      g.node("defaults").flatMap(n -> r.namedMap(n, g.path("defaults"))).ifPresent(m -> {
        for (Node.Entry e : m.view().values()) {
          String path = DocReader.child(g.path("defaults"), e.key());
          r.fields(e.value(), path, DEFAULT_FIELDS)
              .flatMap(f -> declaration(r, f, Optional.of(e.key())))
              .ifPresent(policy::addGateDefaults);
        }
      });
    });
  }

  /**
   * One cadence's blocking level: {@code regression} or {@code error}. A problem is located at the value; the
   * path keeps the location of its key (the cadence), which the static check of unknown cadences reports.
   */
  private static Optional<FailOnLevel> failOn(DocReader r, Node node, String path) {
    if (node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
      Optional<FailOnLevel> level = FailOnLevel.fromDocumentName(s.text());
      if (level.isEmpty()) {
        r.problem(node.location(), path, "unknown blocking level '" + s.text() + "'; expected regression or error");
      }
      return level;
    }
    r.problem(node.location(), path, "expected regression or error, found " + node.describe());
    return Optional.empty();
  }

  /** Reads one declaration of a test: a mapping with {@code metric_key} and optional parts. */
  static Optional<GateDeclaration> testDeclaration(DocReader r, Node node, String path) {
    return r.fields(node, path, DECLARATION_FIELDS).flatMap(f -> declaration(r, f, Optional.empty()));
  }

  private static Optional<GateDeclaration> declaration(DocReader r, DocReader.Fields f, Optional<String> key) {
    GateDeclaration.Builder b = GateDeclaration.builder();
    Optional<String> metric = key.isPresent() ? key : f.requiredString("metric_key");
    boolean ok = metric.isPresent();
    Optional<Node> steps = f.node("steps");
    if (steps.isPresent()) {
      Optional<GateSteps> s = steps(r, steps.get(), f.path("steps"));
      ok &= s.isPresent();
      s.ifPresent(b::steps);
    }
    Optional<Node> constraint = f.node("constraint");
    if (constraint.isPresent()) {
      Optional<GateConstraint> c = constraint(r, constraint.get(), f.path("constraint"));
      ok &= c.isPresent();
      c.ifPresent(b::constraint);
    }
    Optional<String> better = f.string("better");
    if (better.isPresent()) {
      Optional<Better> d = Better.fromDocumentName(better.get());
      if (d.isEmpty()) {
        r.problem(f.node("better").orElseThrow().location(), f.path("better"),
            "unknown direction '" + better.get() + "'; expected lower or higher");
      }
      ok &= d.isPresent();
      d.ifPresent(b::better);
    }
    return ok ? Optional.of(b.metricKey(metric.orElseThrow()).build()) : Optional.empty();
  }

  private static Optional<GateSteps> steps(DocReader r, Node node, String path) {
    if (node instanceof Node.ListNode) {
      int before = r.problems().size();
      var indices = r.intList(node, path);
      return r.problems().size() == before ? Optional.of(GateSteps.indices(indices)) : Optional.empty();
    }
    r.mark(path, node.location());
    if (node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING) {
      if (s.text().equals("last")) {
        return Optional.of(GateSteps.last());
      }
      if (s.text().equals("all")) {
        return Optional.of(GateSteps.all());
      }
    }
    String found = node instanceof Node.Scalar s && s.kind() == Node.Scalar.Kind.STRING
        ? "'" + s.text() + "'" : node.describe();
    r.problem(node.location(), path, "expected last, all or a list of step indices, found " + found);
    return Optional.empty();
  }

  private static Optional<GateConstraint> constraint(DocReader r, Node node, String path) {
    return r.fields(node, path, Set.copyOf(GateConstraint.FIELDS)).flatMap(f -> {
      GateConstraint.Builder b = GateConstraint.builder();
      boolean ok = true;
      for (String name : GateConstraint.FIELDS) {
        Optional<Node> n = f.node(name);
        if (n.isEmpty()) {
          continue;
        }
        Optional<Double> v = r.number(n.get(), f.path(name));
        ok &= v.isPresent();
        v.ifPresent(x -> {
          switch (name) {
            case "rel_up" -> b.relUp(x);
            case "abs_floor_up" -> b.absFloorUp(x);
            case "rel_down" -> b.relDown(x);
            default -> b.absFloorDown(x);
          }
        });
      }
      return ok ? Optional.of(b.build()) : Optional.empty();
    });
  }
}

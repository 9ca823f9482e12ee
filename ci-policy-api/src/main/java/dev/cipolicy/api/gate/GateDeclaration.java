package dev.cipolicy.api.gate;

import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.value.ValueStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * One gate as declared: a metric key and, optionally, its steps, its constraint and which
 * direction is better. What a test leaves out comes from the defaults table, whose entries are
 * declarations too (a default declares at least steps and constraint). This is a plain description: a
 * policy's defaults are validated by the policy's static checks, and {@code ci-gate} validates the
 * resolved declarations it evaluates.
 *
 * <pre>{@code
 * GateDeclaration.builder().metricKey("train/grad_norm").steps(GateSteps.all())
 *     .constraint(GateConstraint.of(.5, .1, .8, .1)).better(Better.LOWER).build();
 * }</pre>
 */
@Value.Immutable
@ValueStyle
public abstract class GateDeclaration {

  /**
   * The metric's key in the test's record.
   *
   * @return e.g. {@code train/grad_norm}
   */
  public abstract String metricKey();

  /**
   * The steps judged.
   *
   * @return the declared steps, or empty to take them from the defaults table
   */
  public abstract Optional<GateSteps> steps();

  /**
   * The tolerance.
   *
   * @return the declared constraint, or empty to take it from the defaults table
   */
  public abstract Optional<GateConstraint> constraint();

  /**
   * Which direction is an improvement.
   *
   * @return the declared direction, or empty to take it from the defaults table (or leave it unknown)
   */
  public abstract Optional<Better> better();

  /**
   * What makes the declaration unusable, by field path relative to the declaration
   * ({@code metric_key}, {@code steps[1]}, {@code constraint.rel_up}, ...). Absent parts are not
   * problems here; whether they must be present depends on where the declaration is used.
   *
   * @return the problems; empty when every declared part is valid
   */
  public List<PolicyProblem> violations() {
    List<PolicyProblem> out = new ArrayList<>();
    if (metricKey().isBlank()) {
      out.add(PolicyProblem.at("metric_key", "the metric key must not be empty"));
    }
    steps().ifPresent(s -> s.violations().forEach(p -> out.add(under("steps", p))));
    constraint().ifPresent(c -> c.violations().forEach(p -> out.add(under("constraint", p))));
    return out;
  }

  /**
   * Re-roots a problem under a parent field path.
   *
   * @param parent the parent path, e.g. {@code gates.defaults.train/grad_norm}
   * @param problem a problem with a path relative to the parent
   * @return the problem with the joined path
   */
  public static PolicyProblem under(String parent, PolicyProblem problem) {
    String p = problem.path();
    String joined = p.isEmpty() ? parent : parent.isEmpty() ? p : p.startsWith("[") ? parent + p : parent + "." + p;
    return new PolicyProblem(problem.location(), joined, problem.message());
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link GateDeclaration}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableGateDeclaration.Builder {
    Builder() {}
  }
}

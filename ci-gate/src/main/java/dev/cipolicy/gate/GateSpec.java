package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidGateException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * A complete, valid gate: metric key, steps and constraint all known and following the rules,
 * plus the better direction when known. Building an invalid one throws {@link InvalidGateException}.
 * {@link Gates#resolve} makes specs from a test's declarations and the defaults table.
 */
@Value.Immutable
@ValueStyle
public abstract class GateSpec {

  /**
   * The metric's key in the record.
   *
   * @return e.g. {@code train/grad_norm}
   */
  public abstract String metricKey();

  /**
   * The steps judged.
   *
   * @return the steps
   */
  public abstract GateSteps steps();

  /**
   * The tolerance around the reference.
   *
   * @return the constraint
   */
  public abstract GateConstraint constraint();

  /**
   * Which direction is an improvement.
   *
   * @return the direction; empty when unknown (an out-of-band value is then {@code OUT_OF_BAND})
   */
  public abstract Optional<Better> better();

  /**
   * The canonical steps key, part of every coordinate.
   *
   * @return e.g. {@code all}
   */
  @Value.Lazy
  public String stepsKey() {
    return steps().key();
  }

  /**
   * The canonical constraint key, part of every coordinate.
   *
   * @return e.g. {@code {"abs_floor_down":0.1,"abs_floor_up":0.1,"rel_down":0.8,"rel_up":0.5}}
   */
  @Value.Lazy
  public String constraintKey() {
    return constraint().key();
  }

  /**
   * Rejects a spec that breaks a rule.
   *
   * @throws InvalidGateException listing every violation
   */
  @Value.Check
  protected void check() {
    List<PolicyProblem> problems = declaration().violations();
    if (!problems.isEmpty()) {
      throw new InvalidGateException(problems.stream()
          .map(p -> GateDeclaration.under(metricKey(), p)).toList());
    }
  }

  /**
   * This spec as a complete declaration.
   *
   * @return a declaration with steps, constraint and (when known) better
   */
  public GateDeclaration declaration() {
    return GateDeclaration.builder().metricKey(metricKey()).steps(steps()).constraint(constraint())
        .better(better()).build();
  }

  /**
   * A spec from a complete declaration.
   *
   * @param declaration a declaration with steps and constraint
   * @return the spec
   * @throws InvalidGateException when steps or constraint are missing or a part is invalid
   */
  public static GateSpec of(GateDeclaration declaration) {
    return Gates.resolve(List.of(declaration), List.of()).get(0);
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link GateSpec}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableGateSpec.Builder {
    Builder() {}
  }
}

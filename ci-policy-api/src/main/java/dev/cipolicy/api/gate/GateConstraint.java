package dev.cipolicy.api.gate;

import dev.cipolicy.api.CanonicalJson;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.value.ValueStyle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.immutables.value.Value;

/**
 * The tolerance of a gate around its reference: the band is
 * {@code [ref − max(rel_down·|ref|, abs_floor_down), ref + max(rel_up·|ref|, abs_floor_up)]}. Each
 * parameter is optional and counts as 0 when absent; a valid constraint declares at least one up and one
 * down parameter, each finite and {@code ≥ 0}. Which parameters were declared is kept, because the
 * {@link #key() canonical key} is built from the constraint as declared.
 */
@Value.Immutable
@ValueStyle
public abstract class GateConstraint {
  /** The document names of the parameters, in their documented order. */
  public static final List<String> FIELDS = List.of("rel_up", "abs_floor_up", "rel_down", "abs_floor_down");

  /**
   * The relative upward tolerance, a fraction of {@code |ref|}.
   *
   * @return the declared value, if any
   */
  public abstract OptionalDouble relUp();

  /**
   * The absolute upward tolerance, the least the band extends above the reference.
   *
   * @return the declared value, if any
   */
  public abstract OptionalDouble absFloorUp();

  /**
   * The relative downward tolerance, a fraction of {@code |ref|}.
   *
   * @return the declared value, if any
   */
  public abstract OptionalDouble relDown();

  /**
   * The absolute downward tolerance, the least the band extends below the reference.
   *
   * @return the declared value, if any
   */
  public abstract OptionalDouble absFloorDown();

  /**
   * The parameters that were declared, by document name, in their documented order.
   *
   * @return an ordered map of the declared parameters
   */
  public Map<String, Double> declared() {
    Map<String, Double> m = new LinkedHashMap<>();
    relUp().ifPresent(v -> m.put("rel_up", v));
    absFloorUp().ifPresent(v -> m.put("abs_floor_up", v));
    relDown().ifPresent(v -> m.put("rel_down", v));
    absFloorDown().ifPresent(v -> m.put("abs_floor_down", v));
    return m;
  }

  /**
   * The canonical key of the constraint as declared: a compact JSON object of the declared parameters
   * only, keys in alphabetical order, numbers in canonical form ({@code .5} and {@code 0.50} are
   * {@code 0.5}, {@code 1.0} is {@code 1}). An explicit {@code 0} and an absent parameter give different
   * keys, as they are different literals.
   *
   * @return e.g. {@code {"abs_floor_down":0.1,"abs_floor_up":0.1,"rel_down":0.8,"rel_up":0.5}}
   */
  @Value.Lazy
  public String key() {
    Map<String, Object> sorted = new TreeMap<>(declared());
    return CanonicalJson.write(sorted);
  }

  /**
   * The upward tolerance in effect: {@code max(rel_up·|ref|, abs_floor_up)}.
   *
   * @param ref the reference
   * @return the distance from the reference to the upper limit, {@code ≥ 0} for a valid constraint
   */
  public double upTolerance(double ref) {
    return Math.max(relUp().orElse(0) * Math.abs(ref), absFloorUp().orElse(0));
  }

  /**
   * The downward tolerance in effect: {@code max(rel_down·|ref|, abs_floor_down)}.
   *
   * @param ref the reference
   * @return the distance from the reference to the lower limit, {@code ≥ 0} for a valid constraint
   */
  public double downTolerance(double ref) {
    return Math.max(relDown().orElse(0) * Math.abs(ref), absFloorDown().orElse(0));
  }

  /**
   * What makes the constraint unusable, by field path relative to the constraint.
   *
   * @return the problems; empty when the constraint is valid
   */
  public List<PolicyProblem> violations() {
    List<PolicyProblem> out = new ArrayList<>();
    declared().forEach((name, v) -> {
      if (!Double.isFinite(v)) {
        out.add(PolicyProblem.at(name, name + " must be finite, got " + v));
      } else if (v < 0) {
        out.add(PolicyProblem.at(name, name + " must be >= 0, got " + CanonicalJson.number(v)));
      }
    });
    if (relUp().isEmpty() && absFloorUp().isEmpty()) {
      out.add(PolicyProblem.at("", "a constraint needs at least one up parameter (rel_up or abs_floor_up)"));
    }
    if (relDown().isEmpty() && absFloorDown().isEmpty()) {
      out.add(PolicyProblem.at("", "a constraint needs at least one down parameter (rel_down or abs_floor_down)"));
    }
    return out;
  }

  /**
   * A constraint with all four parameters declared.
   *
   * @param relUp the relative upward tolerance
   * @param absFloorUp the absolute upward tolerance
   * @param relDown the relative downward tolerance
   * @param absFloorDown the absolute downward tolerance
   * @return the constraint
   */
  public static GateConstraint of(double relUp, double absFloorUp, double relDown, double absFloorDown) {
    return builder().relUp(relUp).absFloorUp(absFloorUp).relDown(relDown).absFloorDown(absFloorDown).build();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link GateConstraint}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableGateConstraint.Builder {
    Builder() {}
  }
}

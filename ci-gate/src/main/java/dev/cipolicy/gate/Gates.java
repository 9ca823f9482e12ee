package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidGateException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.gate.Better;
import dev.cipolicy.api.gate.GateConstraint;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.gate.GateSteps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Factories for gates: the reference defaults table and the resolution of declarations. */
public final class Gates {
  private static final List<GateDeclaration> REFERENCE_DEFAULTS = List.of(
      reference("train/grad_norm", GateSteps.all(), GateConstraint.of(.5, .1, .8, .1), Better.LOWER),
      reference("train/ppo_kl", GateSteps.all(), GateConstraint.of(.5, .02, .8, .02), Better.LOWER),
      reference("train/train_rollout_logprob_abs_diff", GateSteps.all(), GateConstraint.of(.5, .02, .8, .02),
          Better.LOWER),
      reference("train/train_rollout_kl", GateSteps.all(), GateConstraint.of(.5, .02, .8, .02), Better.LOWER),
      reference("rollout/raw_reward", GateSteps.all(), GateConstraint.of(.5, .05, .2, .05), Better.HIGHER),
      reference("rollout/tito_session_mismatch_rate/v1/assistant_text", GateSteps.last(),
          GateConstraint.builder().relUp(1).absFloorUp(.1).relDown(1).build(), Better.LOWER),
      reference("rollout/tito_session_mismatch_rate/v2/assistant_text", GateSteps.last(),
          GateConstraint.builder().relUp(1).absFloorUp(.1).relDown(1).build(), Better.LOWER));

  private Gates() {}

  private static GateDeclaration reference(String metric, GateSteps steps, GateConstraint c, Better better) {
    return GateDeclaration.builder().metricKey(metric).steps(steps).constraint(c).better(better).build();
  }

  /**
   * The reference defaults table, as {@code examples/policies/miles.yaml} declares it. The
   * better directions are ours (the reference has none).
   *
   * @return the seven defaults, in their documented order
   */
  public static List<GateDeclaration> referenceDefaults() {
    return REFERENCE_DEFAULTS;
  }

  /**
   * Completes a test's declarations from a defaults table and validates them. A declaration takes each
   * part it leaves out — steps, constraint, better — from the default of its metric; the canonical keys
   * come from the parts as declared (or as the default declares them).
   *
   * @param declared the test's declarations, in order
   * @param defaults the defaults table, typically {@code policy.gateDefaults()}
   * @return one spec per declaration, in order
   * @throws InvalidGateException listing every problem, by path {@code gates[i].field}
   */
  public static List<GateSpec> resolve(List<GateDeclaration> declared, List<GateDeclaration> defaults) {
    Map<String, GateDeclaration> byMetric = new HashMap<>();
    defaults.forEach(d -> byMetric.putIfAbsent(d.metricKey(), d));
    List<PolicyProblem> problems = new ArrayList<>();
    List<GateSpec> specs = new ArrayList<>();
    for (int i = 0; i < declared.size(); i++) {
      GateDeclaration d = declared.get(i);
      String path = "gates[" + i + "]";
      Optional<GateDeclaration> def = Optional.ofNullable(byMetric.get(d.metricKey()));
      Optional<GateSteps> steps = d.steps().or(() -> def.flatMap(GateDeclaration::steps));
      Optional<GateConstraint> constraint = d.constraint().or(() -> def.flatMap(GateDeclaration::constraint));
      Optional<Better> better = d.better().or(() -> def.flatMap(GateDeclaration::better));
      int before = problems.size();
      d.violations().forEach(p -> problems.add(GateDeclaration.under(path, p)));
      if (steps.isEmpty()) {
        problems.add(PolicyProblem.at(path + ".steps", "the gate on '" + d.metricKey()
            + "' declares no steps and no default supplies them"));
      }
      if (constraint.isEmpty()) {
        problems.add(PolicyProblem.at(path + ".constraint", "the gate on '" + d.metricKey()
            + "' declares no constraint and no default supplies one"));
      }
      if (problems.size() > before) {
        continue;
      }
      try {
        specs.add(GateSpec.builder().metricKey(d.metricKey()).steps(steps.get()).constraint(constraint.get())
            .better(better).build());
      } catch (InvalidGateException e) {
        // a default that breaks the rules; a checked policy never has one
        e.problems().forEach(p -> problems.add(new PolicyProblem(p.location(), path + " (default " + p.path() + ")",
            p.message())));
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidGateException(problems);
    }
    return List.copyOf(specs);
  }
}

package dev.cipolicy.core;

import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.gate.GateDeclaration;
import dev.cipolicy.api.policy.Policy;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * The static checks of the {@code gates} section: every blocking level names a declared cadence; every
 * default names a metric once, declares steps and a constraint, and each declared part follows the rules.
 */
final class GateChecks {
  private GateChecks() {}

  /**
   * Runs the checks and reports each problem as (field path, message).
   *
   * @param policy the policy
   * @param problem receives every problem found
   */
  static void check(Policy policy, BiConsumer<String, String> problem) {
    for (String cadence : policy.gateFailOn().keySet()) {
      if (policy.cadence(cadence).isEmpty()) {
        problem.accept("gates.fail_on." + cadence, "unknown cadence '" + cadence + "'; expected one of "
            + new TreeSet<>(policy.cadenceNames()));
      }
    }
    Set<String> metrics = new HashSet<>();
    for (GateDeclaration d : policy.gateDefaults()) {
      String path = "gates.defaults." + d.metricKey();
      if (!metrics.add(d.metricKey())) {
        problem.accept(path, "the gate default of metric '" + d.metricKey() + "' is declared twice");
      }
      if (d.steps().isEmpty()) {
        problem.accept(path, "a gate default must declare steps (last, all or a list of step indices)");
      }
      if (d.constraint().isEmpty()) {
        problem.accept(path, "a gate default must declare a constraint");
      }
      for (PolicyProblem p : d.violations()) {
        PolicyProblem rooted = GateDeclaration.under(path, p);
        problem.accept(rooted.path(), rooted.message());
      }
    }
  }
}

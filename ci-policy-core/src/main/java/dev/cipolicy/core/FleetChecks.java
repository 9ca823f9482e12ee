package dev.cipolicy.core;

import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RunnerPool;
import dev.cipolicy.api.policy.Suite;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * The static checks of the {@code fleet} section: at most {@link FleetShare#MAX_SHARES} shares, pools are declared once, a share names a declared cadence
 * and a declared pool and fits in the pool, each cadence has at most one share of a pool, and, once pools
 * are declared, every suite's pool is one of them.
 */
final class FleetChecks {
  private FleetChecks() {}

  /**
   * Runs the checks and reports each problem as (field path, message).
   *
   * @param policy the policy
   * @param cadences the declared cadences
   * @param problem receives every problem found
   */
  static void check(Policy policy, Set<String> cadences, BiConsumer<String, String> problem) {
    Map<String, RunnerPool> pools = new LinkedHashMap<>();
    for (RunnerPool p : policy.pools()) {
      if (pools.putIfAbsent(p.name(), p) != null) {
        problem.accept("fleet.pools." + p.name(), "pool '" + p.name() + "' is declared twice");
      }
    }
    if (policy.fleetShares().size() > FleetShare.MAX_SHARES) {
      problem.accept("fleet.shares", "the policy declares " + policy.fleetShares().size() + " fleet shares; at most "
          + FleetShare.MAX_SHARES + " are accepted (the queue holds no more)");
      return;
    }
    Set<String> seen = new HashSet<>();
    for (FleetShare s : policy.fleetShares()) {
      String cadencePath = "fleet.shares." + s.cadence();
      String path = cadencePath + "." + s.pool();
      if (!cadences.contains(s.cadence())) {
        if (seen.add(s.cadence())) {
          problem.accept(cadencePath, "unknown cadence '" + s.cadence() + "'; expected one of "
              + new TreeSet<>(cadences));
        }
        continue;
      }
      if (!seen.add(s.cadence() + "\u0000" + s.pool())) {
        problem.accept(path, "cadence '" + s.cadence() + "' has a second share of pool '" + s.pool() + "'");
        continue;
      }
      RunnerPool pool = pools.get(s.pool());
      if (pool == null) {
        problem.accept(path, "unknown pool '" + s.pool() + "'; expected one of " + new TreeSet<>(pools.keySet())
            + (pools.isEmpty() ? " (declare it under fleet.pools)" : ""));
        continue;
      }
      int capacity = pool.capacity(s.unit());
      if (s.amount() > capacity) {
        String unit = s.unit().documentName();
        problem.accept(path + "." + unit, "the share of cadence '" + s.cadence() + "' is " + s.amount() + " "
            + unit + " but pool '" + s.pool() + "' has " + capacity + "; expected at most " + capacity);
      }
    }
    if (pools.isEmpty()) {
      return;
    }
    for (Backend b : policy.backends()) {
      for (Suite suite : b.suites()) {
        suite.pool().filter(p -> !pools.containsKey(p)).ifPresent(p -> problem.accept(
            "backends." + b.name() + ".suites." + suite.name() + ".pool", "suite '" + suite.name()
                + "' runs on pool '" + p + "', which fleet.pools does not declare; expected one of "
                + new TreeSet<>(pools.keySet())));
      }
    }
  }
}

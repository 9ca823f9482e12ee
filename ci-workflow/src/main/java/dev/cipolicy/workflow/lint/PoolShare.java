package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.workflow.Concurrency;
import dev.cipolicy.workflow.ExprValue;
import dev.cipolicy.workflow.Expression;
import dev.cipolicy.workflow.InvalidExpressionException;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Matrix;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#POOL_SHARE}: under a throttled cadence, the stage jobs that can overlap hold at
 * most the cadence's share of a pool.
 */
final class PoolShare implements LintCheck {
  private final LintRun run;

  PoolShare(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    for (LintRun.Declared d : run.declared()) {
      poolShare(d, out);
    }
  }

  /** A cadence's cap on one pool: runners, or GPUs. */
  private record Cap(boolean gpus, long amount) {
    String shown() {
      return amount + (gpus ? (amount == 1 ? " GPU" : " GPUs") : (amount == 1 ? " runner" : " runners"));
    }
  }

  /**
   * The hard cap of a cadence on a pool: its fleet share when the policy declares one (none when the share may
   * borrow idle capacity), else {@code gpu_max_parallel} runners (1 when unset).
   */
  private static Optional<Cap> cap(Policy p, String cadence, String pool) {
    Optional<FleetShare> share = p.share(cadence, pool);
    if (share.isPresent()) {
      return share.get().borrow() ? Optional.empty()
          : Optional.of(new Cap(share.get().unit() == FleetShare.Unit.GPUS, share.get().amount()));
    }
    return Optional.of(new Cap(false, p.cadence(cadence).flatMap(CadenceDefinition::gpuMaxParallel).orElse(1)));
  }

  private void poolShare(LintRun.Declared d, List<LintFinding> out) {
    Policy p = run.policy().orElseThrow();
    Map<String, Suite> suites = run.suites();
    List<String> throttled = d.roles().throttledCadences();
    if (throttled.isEmpty()) {
      Set<String> t = new LinkedHashSet<>();
      p.cadences().stream().filter(c -> c.gpuMaxParallel().isPresent()).forEach(c -> t.add(c.name()));
      p.fleetShares().stream().filter(s -> !s.borrow()).forEach(s -> t.add(s.cadence()));
      throttled = List.copyOf(t);
    }
    Set<String> reported = new LinkedHashSet<>();
    for (String cadence : throttled) {
      for (LintRun.LintEvent e : d.events()) {
        if (!e.cadences().contains(cadence)) {
          continue;
        }
        boolean bypass = p.cadence(cadence).map(CadenceDefinition::bypassFastfail).orElse(false);
        Scenario s = run.outputs(d, Scenario.of(e.event()), cadence)
            .withOutput(d.policyJob().id(), d.roles().bypassOutput(), Boolean.toString(bypass));
        Simulation sim = d.simulator().simulate(s);
        Map<String, List<String>> byPool = new LinkedHashMap<>();
        Map<String, Integer> runners = new HashMap<>();
        Map<String, Integer> budget = new HashMap<>();
        for (Map.Entry<String, String> stage : d.stages().entrySet()) {
          Suite suite = suites.get(stage.getValue());
          JobResult r = sim.result(stage.getKey());
          if (suite == null || suite.pool().isEmpty() || r == JobResult.SKIPPED) {
            continue;
          }
          byPool.computeIfAbsent(suite.pool().get(), k -> new ArrayList<>()).add(stage.getKey());
          runners.put(stage.getKey(), runners(d, sim, d.workflow().job(stage.getKey()).orElseThrow()));
          budget.put(stage.getKey(), suite.gpuBudget() > 0 ? suite.gpuBudget() : suite.gpus());
        }
        byPool.forEach((pool, jobs) -> {
          Optional<Cap> c = cap(p, cadence, pool);
          if (c.isEmpty()) {
            return;
          }
          Cap limit = c.get();
          Map<String, Long> weight = new HashMap<>();
          for (String j : jobs) {
            long n = runners.getOrDefault(j, 1);
            weight.put(j, n >= Integer.MAX_VALUE ? Long.MAX_VALUE / 4
                : limit.gpus() ? n * budget.getOrDefault(j, 0) : n);
          }
          List<String> worst = heaviestOverlap(d, jobs, weight);
          long held = worst.stream().mapToLong(x -> weight.getOrDefault(x, 1L)).sum();
          if (held <= limit.amount()) {
            return;
          }
          String at = worst.get(worst.size() - 1);
          if (!reported.add(cadence + "/" + pool + "/" + at)) {
            return;
          }
          Job j = d.workflow().job(at).orElseThrow();
          List<String> parts = worst.stream().map(x -> x + " (" + shown(runners.getOrDefault(x, 1))
              + (limit.gpus() ? " of " + budget.getOrDefault(x, 0) + " GPUs" : "") + ")").toList();
          String fix = worst.size() == 1
              ? "cap its matrix under " + cadence + ", e.g. `max-parallel: ${{ needs." + d.policyJob().id() + ".outputs."
                  + d.roles().cadenceOutput() + " == '" + cadence + "' && 1 || <usual> }}`"
              : "run them one after another under " + cadence + " (needs), cap their matrices with max-parallel, or"
                  + " let the queue's fleet share hold them";
          String unit = limit.gpus() ? " GPUs" : " runners";
          out.add(new LintFinding(LintRule.POOL_SHARE, Severity.ERROR, j.matrix().map(Matrix::location)
              .filter(l -> worst.size() == 1).orElse(j.location()), Optional.of(at),
              "under cadence " + cadence + " (" + e.description() + "), " + String.join(" and ", parts) + " can hold "
                  + (held >= Long.MAX_VALUE / 4 ? "unboundedly many" : Long.toString(held)) + " " + pool + unit
                  + " at once; " + cadence + "'s share of " + pool + " is " + limit.shown() + "; " + fix));
        });
      }
    }
  }

  private static String shown(long runners) {
    return runners >= Integer.MAX_VALUE ? "unbounded" : runners + (runners == 1 ? " runner" : " runners");
  }

  /** How many runners a job holds at once: its legs, capped by {@code max-parallel}. */
  private static int runners(LintRun.Declared d, Simulation sim, Job j) {
    if (j.matrix().isEmpty()) {
      return 1;
    }
    Matrix m = j.matrix().get();
    int legs = m.isDynamic() ? Integer.MAX_VALUE : m.legs().size();
    Optional<Integer> cap = m.maxParallel();
    if (m.maxParallelExpression().isPresent()) {
      try {
        ExprValue v = d.simulator().evaluate(sim, j.id(), Expression.parseTemplate(m.maxParallelExpression().get()));
        double n = ExprValue.toNumber(v);
        if (!Double.isNaN(n) && n >= 1 && n < Integer.MAX_VALUE) {
          cap = Optional.of((int) n);
        }
      } catch (InvalidExpressionException e) {
        // an expression that fails to evaluate caps nothing
      }
    }
    return Math.min(legs, cap.orElse(Integer.MAX_VALUE));
  }

  /**
   * The set of jobs of one pool that can run at the same time (none needs another, directly or not, and no
   * two share a concurrency group) holding the most runners; beyond {@link WorkflowLint#MAX_EXACT_POOL_JOBS} jobs, all
   * of them (an upper bound).
   */
  private static List<String> heaviestOverlap(LintRun.Declared d, List<String> jobs, Map<String, Long> demand) {
    if (jobs.size() > WorkflowLint.MAX_EXACT_POOL_JOBS) {
      return jobs;
    }
    int n = jobs.size();
    boolean[][] apart = new boolean[n][n];
    List<Set<String>> before = new ArrayList<>();
    jobs.forEach(j -> before.add(new HashSet<>(d.simulator().ancestors(j))));
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        String x = jobs.get(a);
        String y = jobs.get(b);
        Optional<String> gx = d.workflow().job(x).flatMap(Job::concurrency).map(Concurrency::group);
        Optional<String> gy = d.workflow().job(y).flatMap(Job::concurrency).map(Concurrency::group);
        apart[a][b] = a != b && (before.get(a).contains(y) || before.get(b).contains(x)
            || (gx.isPresent() && gx.equals(gy)));
      }
    }
    long best = -1;
    int bestMask = 0;
    for (int mask = 1; mask < (1 << n); mask++) {
      long sum = 0;
      boolean ok = true;
      for (int a = 0; a < n && ok; a++) {
        if ((mask & (1 << a)) == 0) {
          continue;
        }
        sum += demand.getOrDefault(jobs.get(a), 1L);
        for (int b = a + 1; b < n; b++) {
          if ((mask & (1 << b)) != 0 && apart[a][b]) {
            ok = false;
            break;
          }
        }
      }
      if (ok && sum > best) {
        best = sum;
        bestMask = mask;
      }
    }
    List<String> out = new ArrayList<>();
    for (int a = 0; a < n; a++) {
      if ((bestMask & (1 << a)) != 0) {
        out.add(jobs.get(a));
      }
    }
    return out;
  }
}

package dev.cipolicy.benchmarks.fleet;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.api.policy.Policy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The physical lower bound of a run's makespan on the fleet: no schedule can end a run sooner than, in any pool,
 * its GPU-hours there divided by the pool's GPUs (every GPU busy with it from its trigger on), nor sooner than its
 * longest test. The bound of a run is the largest of these over its pools.
 */
final class LowerBound {

  private LowerBound() {}

  /**
   * The bound of one run.
   *
   * @param w the workload
   * @param run the run
   * @return milliseconds from the run's trigger
   */
  static long of(Workload w, Workload.Run run) {
    Map<String, Long> gpuMillis = new HashMap<>();
    long longest = 0;
    for (Workload.Test t : run.tests()) {
      gpuMillis.merge(t.pool(), (long) t.gpus() * t.actual(), Long::sum);
      longest = Math.max(longest, t.actual());
    }
    long bound = longest;
    for (Map.Entry<String, Long> e : gpuMillis.entrySet()) {
      int gpus = w.poolGpus.getOrDefault(e.getKey(), 0);
      if (gpus > 0) {
        bound = Math.max(bound, (e.getValue() + gpus - 1) / gpus);
      }
    }
    return bound;
  }

  /**
   * The bound of one run held to its cadence's fleet shares at every instant (never borrowing): in a pool where
   * the cadence has a share, at most {@code amount} of its jobs run at once under a share of runners; under a
   * share of G GPUs, its GPU-hours there need at least GPU-hours ÷ min(G, the pool's GPUs), and its jobs of g or
   * more GPUs, of which at most ⌊min(G, pool)/g⌋ fit in the share at once, need their summed durations ÷ that
   * count. A pool without a share is bounded as in {@link #of}. A run that borrows beyond its share can end
   * sooner than this bound; one that never may cannot.
   *
   * @param w the workload
   * @param policy the policy whose shares hold
   * @param run the run
   * @return milliseconds from the run's trigger
   */
  static long withinShares(Workload w, Policy policy, Workload.Run run) {
    long bound = of(w, run);
    Map<String, List<Workload.Test>> byPool = new HashMap<>();
    for (Workload.Test t : run.tests()) {
      byPool.computeIfAbsent(t.pool(), k -> new ArrayList<>()).add(t);
    }
    for (Map.Entry<String, List<Workload.Test>> e : byPool.entrySet()) {
      Optional<FleetShare> share = policy.share(run.cadence(), e.getKey());
      int poolGpus = w.poolGpus.getOrDefault(e.getKey(), 0);
      if (share.isEmpty() || poolGpus == 0) {
        continue;
      }
      List<Workload.Test> tests = e.getValue();
      if (share.get().unit() == FleetShare.Unit.RUNNERS) {
        long sum = tests.stream().mapToLong(Workload.Test::actual).sum();
        int at = share.get().amount();
        bound = Math.max(bound, (sum + at - 1) / at);
        continue;
      }
      int gpus = Math.min(share.get().amount(), poolGpus);
      long gpuMillis = tests.stream().mapToLong(t -> (long) t.gpus() * t.actual()).sum();
      bound = Math.max(bound, (gpuMillis + gpus - 1) / gpus);
      for (int g : new TreeSet<>(tests.stream().map(Workload.Test::gpus).toList())) {
        int atOnce = gpus / g;
        if (atOnce == 0) {
          continue;
        }
        long sum = tests.stream().filter(t -> t.gpus() >= g).mapToLong(Workload.Test::actual).sum();
        bound = Math.max(bound, (sum + atOnce - 1) / atOnce);
      }
    }
    return bound;
  }

  /**
   * The mean {@link #withinShares} bound over the runs of a cadence that have tests.
   *
   * @param w the workload
   * @param policy the policy whose shares hold
   * @param cadence e.g. {@code nightly}
   * @return the mean in milliseconds, NaN when there is no such run
   */
  static double meanWithinShares(Workload w, Policy policy, String cadence) {
    return w.runs.stream().filter(r -> r.cadence().equals(cadence) && !r.tests().isEmpty())
        .mapToLong(r -> withinShares(w, policy, r)).average().orElse(Double.NaN);
  }

  /**
   * The mean bound over the runs of a cadence that have tests.
   *
   * @param w the workload
   * @param cadence e.g. {@code nightly}
   * @return the mean in milliseconds, NaN when there is no such run
   */
  static double mean(Workload w, String cadence) {
    List<Long> bounds = w.runs.stream().filter(r -> r.cadence().equals(cadence) && !r.tests().isEmpty())
        .map(r -> of(w, r)).toList();
    return bounds.stream().mapToLong(Long::longValue).average().orElse(Double.NaN);
  }
}

package dev.cipolicy.benchmarks.fleet;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

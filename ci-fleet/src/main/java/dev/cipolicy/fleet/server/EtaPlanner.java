package dev.cipolicy.fleet.server;

import dev.cipolicy.queue.model.JobSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * Predicts when each request completes by placing the remaining work on the fleet in queue order: each host
 * is a row of device (or CPU slot) free times; a running job holds its devices until its expected end (its
 * start plus the median of its recent successes); each queued job goes, in order, to the host of its pool
 * where enough devices free up first; a request that has not started starts when one of the K in-progress
 * slots frees up. Times are seconds from now. A request with a job whose pool has no live host gets no ETA.
 */
public final class EtaPlanner {

  /** A running job: the units it holds on a host and how long it still runs. */
  public record Running(String host, int units, double remainingSeconds) {}

  /** A request to place: its queued (not yet running) jobs, and the end of its running jobs. */
  public record Work(String id, boolean started, List<JobSpec> queued, double runningUntil) {}

  private final Map<String, List<double[]>> pools = new HashMap<>();
  private final Map<String, double[]> hosts = new HashMap<>();

  /**
   * Adds a live host.
   *
   * @param name the host
   * @param pool its pool
   * @param capacity its devices, or CPU slots
   */
  public void host(String name, String pool, int capacity) {
    double[] free = new double[Math.max(1, capacity)];
    hosts.put(name, free);
    pools.computeIfAbsent(pool, p -> new ArrayList<>()).add(free);
  }

  /**
   * Marks a running job's units busy.
   *
   * @param r the running job
   */
  public void running(Running r) {
    double[] free = hosts.get(r.host());
    if (free == null) {
      return;
    }
    Arrays.sort(free);
    for (int i = 0; i < Math.min(Math.max(1, r.units()), free.length); i++) {
      free[i] = Math.max(free[i], r.remainingSeconds());
    }
  }

  /**
   * Places the work in queue order and returns each request's predicted completion, in seconds from now.
   *
   * @param work the requests in queue order, in progress first
   * @param maxInProgress the cap K
   * @param expected the expected duration of a job, in seconds
   * @return the completion per request id; absent for a request that cannot be placed
   */
  public Map<String, Double> plan(List<Work> work, int maxInProgress, java.util.function.ToDoubleFunction<JobSpec> expected) {
    Map<String, Double> out = new HashMap<>();
    PriorityQueue<Double> slots = new PriorityQueue<>();
    int startedCount = 0;
    List<Work> pending = new ArrayList<>();
    for (Work w : work) {
      if (w.started()) {
        Double end = place(w, 0, expected);
        startedCount++;
        if (end != null) {
          out.put(w.id(), end);
          slots.add(end);
        } else {
          slots.add(Double.POSITIVE_INFINITY);
        }
      } else {
        pending.add(w);
      }
    }
    for (int i = startedCount; i < maxInProgress; i++) {
      slots.add(0.0);
    }
    for (Work w : pending) {
      double start = slots.isEmpty() ? 0.0 : slots.poll();
      Double end = Double.isInfinite(start) ? null : place(w, start, expected);
      slots.add(end == null ? Double.POSITIVE_INFINITY : end);
      if (end != null) {
        out.put(w.id(), end);
      }
    }
    return out;
  }

  private @Nullable Double place(Work w, double notBefore, java.util.function.ToDoubleFunction<JobSpec> expected) {
    double end = Math.max(notBefore, w.runningUntil());
    for (JobSpec spec : w.queued()) {
      List<double[]> pool = pools.get(spec.pool());
      if (pool == null) {
        return null;
      }
      int units = Math.max(1, spec.gpus());
      double[] best = null;
      double bestStart = Double.POSITIVE_INFINITY;
      for (double[] free : pool) {
        if (free.length < units) {
          continue;
        }
        Arrays.sort(free);
        double start = Math.max(notBefore, free[units - 1]);
        if (start < bestStart) {
          bestStart = start;
          best = free;
        }
      }
      if (best == null) {
        return null;
      }
      double finish = bestStart + expected.applyAsDouble(spec);
      for (int i = 0; i < units; i++) {
        best[i] = finish;
      }
      end = Math.max(end, finish);
    }
    return end;
  }
}

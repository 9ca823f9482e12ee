package dev.cipolicy.benchmarks.fleet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one setup did with a {@link Workload}: when each test started and ended (and how often it ran), the
 * waits of 8-GPU jobs, the busy GPU intervals, the weekly run's peak use of each pool and the checks counted
 * on the way (devices leased twice, reservation-bound violations).
 */
final class Outcome {
  final String setup;
  final long[] start;
  final long[] end;
  final int[] timesRun;
  final List<Long> eightGpuWaits = new ArrayList<>();
  /** Busy intervals: {start, end, gpus}. */
  final List<long[]> busy = new ArrayList<>();
  final Map<String, int[]> weeklyNow = new TreeMap<>();
  /** Per pool: {peak jobs, peak GPUs} held at once by weekly runs. */
  final Map<String, int[]> weeklyPeak = new TreeMap<>();
  int jobs;
  int doubleBookings;
  int boundChecks;
  int boundViolations;
  int actualBoundViolations;
  /**
   * Heads past their bound that their own share refused while they waited, or admitted only by borrowing beyond
   * it (a refusal leaves their reservation dormant, and the head among the others is reserved for claim by
   * claim meanwhile).
   */
  int shareHeldViolations;
  /**
   * Heads past their bound that were reserved for only while another job's share held that job back and it kept
   * its reservation dormant: it takes the reservation back when admitted again, so such a head has no bound
   * until it holds the pool's reservation itself (it is then given a new one).
   */
  int provisionalViolations;
  long worstOverBound;

  Outcome(String setup, int tests) {
    this.setup = setup;
    start = new long[tests];
    end = new long[tests];
    timesRun = new int[tests];
    Arrays.fill(start, -1);
    Arrays.fill(end, -1);
  }

  void ran(Workload.Test t, long from, long to) {
    timesRun[t.id()]++;
    start[t.id()] = from;
    end[t.id()] = to;
    busy.add(new long[] {from, to, t.gpus()});
  }

  void jobStarted(String cadence, String pool, int gpus) {
    if (cadence.equals("weekly")) {
      int[] now = weeklyNow.computeIfAbsent(pool, p -> new int[2]);
      now[0]++;
      now[1] += gpus;
      int[] peak = weeklyPeak.computeIfAbsent(pool, p -> new int[2]);
      peak[0] = Math.max(peak[0], now[0]);
      peak[1] = Math.max(peak[1], now[1]);
    }
  }

  void jobEnded(String cadence, String pool, int gpus) {
    if (cadence.equals("weekly")) {
      int[] now = weeklyNow.get(pool);
      now[0]--;
      now[1] -= gpus;
    }
  }

  /** The run's makespan: its trigger to its last test's end, or -1 when a test did not run. */
  long makespan(Workload.Run run) {
    long last = run.at();
    for (Workload.Test t : run.tests()) {
      if (end[t.id()] < 0) {
        return -1;
      }
      last = Math.max(last, end[t.id()]);
    }
    return last - run.at();
  }

  /** The run's makespan on one pool: its trigger to the end of its last test there, or 0 when it has none. */
  long makespan(Workload.Run run, String pool) {
    long last = run.at();
    for (Workload.Test t : run.tests()) {
      if (t.pool().equals(pool)) {
        last = Math.max(last, end[t.id()]);
      }
    }
    return last - run.at();
  }

  long lastEnd() {
    return Arrays.stream(end).max().orElse(0);
  }

  /** Busy GPU-milliseconds inside [from, to). */
  double busyIn(long from, long to) {
    double sum = 0;
    for (long[] b : busy) {
      long lo = Math.max(from, b[0]);
      long hi = Math.min(to, b[1]);
      if (hi > lo) {
        sum += (double) (hi - lo) * b[2];
      }
    }
    return sum;
  }
}

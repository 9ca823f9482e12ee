package dev.cipolicy.fleet.server;

import dev.cipolicy.queue.model.JobSpec;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The run times of recent successful jobs per (benchmark group, collector tag), and the expected duration
 * of a job: the median of its last {@link #WINDOW} successes, or its estimate while it has none.
 */
public final class DurationHistory {
  /** How many recent successes of a (group, tag) the median is taken over. */
  public static final int WINDOW = 20;

  private final Map<String, Deque<Double>> runs = new HashMap<>();

  private static String key(JobSpec spec) {
    return spec.benchmarkGroup() + "@" + spec.collectorTag();
  }

  /**
   * Records a successful run.
   *
   * @param spec the job
   * @param seconds how long it ran
   */
  public synchronized void record(JobSpec spec, double seconds) {
    Deque<Double> d = runs.computeIfAbsent(key(spec), k -> new ArrayDeque<>());
    d.addLast(seconds);
    while (d.size() > WINDOW) {
      d.removeFirst();
    }
  }

  /**
   * The expected duration of a job.
   *
   * @param spec the job
   * @return the median of its recent successes, else its estimate, in seconds
   */
  public synchronized double expectedSeconds(JobSpec spec) {
    Deque<Double> d = runs.get(key(spec));
    if (d == null || d.isEmpty()) {
      return spec.estimate().toNanos() / 1e9;
    }
    return median(new ArrayList<>(d));
  }

  /**
   * How many successes of a job are known.
   *
   * @param spec the job
   * @return the count, at most {@link #WINDOW}
   */
  public synchronized int samples(JobSpec spec) {
    Deque<Double> d = runs.get(key(spec));
    return d == null ? 0 : d.size();
  }

  /**
   * The median of values.
   *
   * @param values at least one value
   * @return the median
   */
  public static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * A duration in seconds.
   *
   * @param d a duration
   * @return its seconds
   */
  public static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}

package dev.cipolicy.examples.fleet;

import dev.cipolicy.queue.model.JobSpec;
import java.time.Duration;
import java.util.Random;

/**
 * How long a simulated job really runs and whether it fails: its estimate times a bias fixed per benchmark
 * group (some suites are always slower or faster than estimated), times a little noise per run; a small share
 * of runs fail with an assertion error. Seeded, so a fleet replays the same way.
 */
public final class JobBehaviour {
  private final long seed;
  private final double failureRate;
  private final Random random;

  /**
   * A behaviour.
   *
   * @param seed the seed
   * @param failureRate the share of runs that fail, 0 to 1
   */
  public JobBehaviour(long seed, double failureRate) {
    this.seed = seed;
    this.failureRate = failureRate;
    this.random = new Random(seed);
  }

  /**
   * The bias of a group: the ratio of its true median duration to its estimate, 0.6 to 1.6.
   *
   * @param spec the job
   * @return the ratio
   */
  public double bias(JobSpec spec) {
    Random r = new Random(seed * 31 + (spec.benchmarkGroup() + "@" + spec.collectorTag()).hashCode());
    return 0.6 + r.nextDouble();
  }

  /**
   * How long one run of a job takes.
   *
   * @param spec the job
   * @return the duration
   */
  public synchronized Duration duration(JobSpec spec) {
    double noise = 0.9 + 0.2 * random.nextDouble();
    long nanos = Math.round(spec.estimate().toNanos() * bias(spec) * noise);
    return Duration.ofNanos(Math.max(1_000_000L, nanos));
  }

  /**
   * Whether one run fails, and with what message.
   *
   * @param spec the job
   * @return the error, or null when it succeeds
   */
  public synchronized String failure(JobSpec spec) {
    if (random.nextDouble() >= failureRate) {
      return null;
    }
    String[] errors = {
        "AssertionError: loss 2.91 above the baseline 2.45 at step 200",
        "RuntimeError: NCCL watchdog timeout after 600 s on rank 3",
        "AssertionError: throughput 812 tokens/s below 900"};
    return errors[random.nextInt(errors.length)] + " (" + spec.benchmarkGroup() + ")";
  }
}

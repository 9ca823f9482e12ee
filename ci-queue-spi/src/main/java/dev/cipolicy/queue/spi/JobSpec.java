package dev.cipolicy.queue.spi;

import java.time.Duration;

/**
 * What one job runs: a benchmark group on the collectors of one tag. Unique per request by group and
 * tag. An optional job (for a non-default collector) never blocks its request's completion. A job may need
 * GPUs: then only a collector of its tag that advertises devices claims it, and only where that many of its
 * devices are free; the collector tag is the job's pool. Its estimated duration lets the store reserve a
 * host for a large job and backfill short ones around it. Its cadence (the cadence of the run that planned it,
 * e.g. {@code weekly}) is what a {@link FleetShares fleet share} caps: the empty string means none, and a job
 * without a cadence is never capped. Its timeout, when it has one, is the longest it may run once claimed: a
 * collector stops it then and fails it (the collector runtime's own job timeout applies to jobs without one).
 *
 * @param benchmarkGroup the benchmark group, e.g. {@code compile-time}
 * @param collectorTag the tag of the collectors that may claim it, e.g. {@code x86-64}; for a GPU job, its
 *     pool, e.g. {@code h200}
 * @param optional whether the job never blocks completion
 * @param gpus how many GPU devices it needs, 0 (none, the default) to {@link #MAX_GPUS}
 * @param estimate how long it is expected to run; zero when unknown (such a job never backfills a host
 *     reserved for another)
 * @param cadence the cadence of the run it belongs to, a name ({@link QueueNames}), or the empty string for
 *     none (the default): only a job with a cadence is capped by a share of its pool
 * @param timeout the longest the job may run once claimed, zero for none (the default), at most
 *     {@link #MAX_TIMEOUT}; whole microseconds are kept
 */
public record JobSpec(String benchmarkGroup, String collectorTag, boolean optional, int gpus, Duration estimate,
    String cadence, Duration timeout) {

  /** The longest estimated duration a job may declare. */
  public static final Duration MAX_ESTIMATE = Duration.ofDays(366);

  /** The longest timeout a job may declare. */
  public static final Duration MAX_TIMEOUT = Duration.ofDays(366);

  /** The most GPUs a job may need. */
  public static final int MAX_GPUS = Devices.MAX_INDEX + 1;

  /** Checks the names, the budget and the cadence. */
  public JobSpec {
    Checks.token(benchmarkGroup, "benchmark group");
    Checks.token(collectorTag, "collector tag");
    Checks.present(cadence, "cadence of job " + benchmarkGroup + "@" + collectorTag + " (the empty string for none)");
    if (!cadence.isEmpty()) {
      Checks.token(cadence, "cadence of job " + benchmarkGroup + "@" + collectorTag);
    }
    if (gpus < 0 || gpus > MAX_GPUS) {
      throw new InvalidQueueInputException("GPU budget of job " + benchmarkGroup + "@" + collectorTag + " is "
          + gpus + "; expected 0 to " + MAX_GPUS);
    }
    Checks.present(estimate, "estimated duration of job " + benchmarkGroup + "@" + collectorTag);
    if (estimate.isNegative() || estimate.compareTo(MAX_ESTIMATE) > 0) {
      throw new InvalidQueueInputException("estimated duration of job " + benchmarkGroup + "@" + collectorTag
          + " is " + estimate + "; expected zero to " + MAX_ESTIMATE);
    }
    // Whole microseconds, as every store keeps instants and durations.
    estimate = Duration.ofSeconds(estimate.getSeconds(), estimate.getNano() / 1_000 * 1_000L);
    Checks.present(timeout, "timeout of job " + benchmarkGroup + "@" + collectorTag + " (zero for none)");
    if (timeout.isNegative() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new InvalidQueueInputException("timeout of job " + benchmarkGroup + "@" + collectorTag + " is "
          + timeout + "; expected zero (none) to " + MAX_TIMEOUT);
    }
    timeout = Duration.ofSeconds(timeout.getSeconds(), timeout.getNano() / 1_000 * 1_000L);
  }

  /**
   * A job without a timeout.
   *
   * @param benchmarkGroup the benchmark group
   * @param collectorTag the collector tag, its pool
   * @param optional whether the job never blocks completion
   * @param gpus how many GPU devices it needs
   * @param estimate how long it is expected to run, zero when unknown
   * @param cadence the cadence of its run, the empty string for none
   */
  public JobSpec(String benchmarkGroup, String collectorTag, boolean optional, int gpus, Duration estimate,
      String cadence) {
    this(benchmarkGroup, collectorTag, optional, gpus, estimate, cadence, Duration.ZERO);
  }

  /**
   * A job without a cadence.
   *
   * @param benchmarkGroup the benchmark group
   * @param collectorTag the collector tag, its pool
   * @param optional whether the job never blocks completion
   * @param gpus how many GPU devices it needs
   * @param estimate how long it is expected to run, zero when unknown
   */
  public JobSpec(String benchmarkGroup, String collectorTag, boolean optional, int gpus, Duration estimate) {
    this(benchmarkGroup, collectorTag, optional, gpus, estimate, "");
  }

  /**
   * A job that needs no GPU and has no estimate.
   *
   * @param benchmarkGroup the benchmark group
   * @param collectorTag the collector tag
   * @param optional whether the job never blocks completion
   */
  public JobSpec(String benchmarkGroup, String collectorTag, boolean optional) {
    this(benchmarkGroup, collectorTag, optional, 0, Duration.ZERO);
  }

  /**
   * A required job.
   *
   * @param benchmarkGroup the benchmark group
   * @param collectorTag the collector tag
   * @return the spec
   */
  public static JobSpec required(String benchmarkGroup, String collectorTag) {
    return new JobSpec(benchmarkGroup, collectorTag, false);
  }

  /**
   * An optional job.
   *
   * @param benchmarkGroup the benchmark group
   * @param collectorTag the collector tag
   * @return the spec
   */
  public static JobSpec optionalJob(String benchmarkGroup, String collectorTag) {
    return new JobSpec(benchmarkGroup, collectorTag, true);
  }

  /**
   * This job with a GPU budget and an estimated duration.
   *
   * @param gpuCount how many GPU devices it needs
   * @param estimated how long it is expected to run (whole microseconds are kept)
   * @return the spec
   */
  public JobSpec withGpus(int gpuCount, Duration estimated) {
    return new JobSpec(benchmarkGroup, collectorTag, optional, gpuCount, estimated, cadence, timeout);
  }

  /**
   * This job as part of a run of a cadence, which the fleet shares of its pool cap.
   *
   * @param runCadence the cadence, e.g. {@code weekly}; the empty string for none
   * @return the spec
   * @throws InvalidQueueInputException when the cadence is not a name
   */
  public JobSpec withCadence(String runCadence) {
    return new JobSpec(benchmarkGroup, collectorTag, optional, gpus, estimate, runCadence, timeout);
  }

  /**
   * This job with a timeout: the longest it may run once claimed.
   *
   * @param limit zero for none, at most {@link #MAX_TIMEOUT} (whole microseconds are kept)
   * @return the spec
   * @throws InvalidQueueInputException when the timeout is negative or longer than {@link #MAX_TIMEOUT}
   */
  public JobSpec withTimeout(Duration limit) {
    return new JobSpec(benchmarkGroup, collectorTag, optional, gpus, estimate, cadence, limit);
  }

  /**
   * Whether the job has a timeout of its own.
   *
   * @return true when {@link #timeout()} is not zero
   */
  public boolean hasTimeout() {
    return !timeout.isZero();
  }

  /**
   * Whether the job has a cadence (only such a job is capped by a share).
   *
   * @return true when {@link #cadence()} is not empty
   */
  public boolean hasCadence() {
    return !cadence.isEmpty();
  }

  /**
   * The pool of the job: the tag of the collectors that may claim it.
   *
   * @return the collector tag
   */
  public String pool() {
    return collectorTag;
  }

  /**
   * Whether the other spec names the same job (same group and tag, whatever its optionality).
   *
   * @param other another spec
   * @return true when group and tag are equal
   */
  public boolean sameJobAs(JobSpec other) {
    return benchmarkGroup.equals(other.benchmarkGroup) && collectorTag.equals(other.collectorTag);
  }

  @Override
  public String toString() {
    return benchmarkGroup + "@" + collectorTag + (gpus > 0 ? " [" + gpus + " GPUs]" : "")
        + (optional ? " (optional)" : "") + (cadence.isEmpty() ? "" : " {" + cadence + "}");
  }
}

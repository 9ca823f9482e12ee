package dev.cipolicy.queue.spi;

/**
 * What one job runs: a benchmark group on the collectors of one tag. Unique per request by group and
 * tag. An optional job (for a non-default collector) never blocks its request's completion.
 *
 * @param benchmarkGroup the benchmark group, e.g. {@code compile-time}
 * @param collectorTag the tag of the collectors that may claim it, e.g. {@code x86-64}
 * @param optional whether the job never blocks completion
 */
public record JobSpec(String benchmarkGroup, String collectorTag, boolean optional) {

  /** Checks the names. */
  public JobSpec {
    Checks.token(benchmarkGroup, "benchmark group");
    Checks.token(collectorTag, "collector tag");
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
    return benchmarkGroup + "@" + collectorTag + (optional ? " (optional)" : "");
  }
}

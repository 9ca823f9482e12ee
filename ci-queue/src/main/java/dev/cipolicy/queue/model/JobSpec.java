package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.time.Duration;
import org.immutables.value.Value;

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
 * <p>Its args, when it has them, are an opaque text for host-defined work (a CI job's command, environment and
 * workspace, as the host encodes them): the store keeps them exactly and hands them to the collector with the
 * job; the queue never reads them.
 *
 * <p>Start from {@link #required} or {@link #optionalJob} and add what the job needs with {@link #withGpus},
 * {@link #withCadence}, {@link #withTimeout} and {@link #withArgs}, or set every field with {@link #builder()}; {@code build()}
 * checks every rule.
 */
@Value.Immutable
@ValueStyle
public abstract class JobSpec {

  /** The longest estimated duration a job may declare. */
  public static final Duration MAX_ESTIMATE = Duration.ofDays(366);

  /** The longest timeout a job may declare. */
  public static final Duration MAX_TIMEOUT = Duration.ofDays(366);

  /** The most bytes of a job's args in UTF-8: 64 KiB. */
  public static final int MAX_ARGS_BYTES = 64 * 1024;

  /** The most GPUs a job may need. */
  public static final int MAX_GPUS = Devices.MAX_INDEX + 1;

  /**
   * The benchmark group, e.g. {@code compile-time}.
   *
   * @return the group, a name
   */
  public abstract String benchmarkGroup();

  /**
   * The tag of the collectors that may claim it, e.g. {@code x86-64}; for a GPU job, its pool, e.g.
   * {@code h200}.
   *
   * @return the tag, a name
   */
  public abstract String collectorTag();

  /**
   * Whether the job never blocks its request's completion.
   *
   * @return true for an optional job
   */
  @Value.Default
  public boolean optional() {
    return false;
  }

  /**
   * How many GPU devices it needs.
   *
   * @return 0 (none, the default) to {@link #MAX_GPUS}
   */
  @Value.Default
  public int gpus() {
    return 0;
  }

  /**
   * How long it is expected to run; zero when unknown (such a job never backfills a host reserved for
   * another).
   *
   * @return the estimate, in whole microseconds, at most {@link #MAX_ESTIMATE}
   */
  @Value.Default
  public Duration estimate() {
    return Duration.ZERO;
  }

  /**
   * The cadence of the run it belongs to: only a job with a cadence is capped by a share of its pool.
   *
   * @return a name ({@link QueueNames}), or the empty string for none (the default)
   */
  @Value.Default
  public String cadence() {
    return "";
  }

  /**
   * The longest the job may run once claimed.
   *
   * @return the timeout in whole microseconds, zero for none (the default), at most {@link #MAX_TIMEOUT}
   */
  @Value.Default
  public Duration timeout() {
    return Duration.ZERO;
  }

  /**
   * The host-defined work of the job, opaque to the queue.
   *
   * @return a text of at most {@value #MAX_ARGS_BYTES} bytes in UTF-8 without NUL or unpaired surrogate, or
   *     empty (the default)
   */
  public abstract java.util.Optional<String> args();

  /**
   * Checks the names, the budget, the cadence and the durations, and keeps whole microseconds of the
   * durations, as every store keeps instants and durations.
   *
   * @return this spec, or one with the durations truncated to whole microseconds
   * @throws InvalidQueueInputException naming the field and the job
   */
  @Value.Check
  protected JobSpec check() {
    String job = benchmarkGroup() + "@" + collectorTag();
    Checks.token(benchmarkGroup(), "benchmark group");
    Checks.token(collectorTag(), "collector tag");
    if (!cadence().isEmpty()) {
      Checks.token(cadence(), "cadence of job " + job);
    }
    if (gpus() < 0 || gpus() > MAX_GPUS) {
      throw new InvalidQueueInputException("GPU budget of job " + job + " is " + gpus() + "; expected 0 to "
          + MAX_GPUS);
    }
    if (estimate().isNegative() || estimate().compareTo(MAX_ESTIMATE) > 0) {
      throw new InvalidQueueInputException("estimated duration of job " + job + " is " + estimate()
          + "; expected zero to " + MAX_ESTIMATE);
    }
    if (timeout().isNegative() || timeout().compareTo(MAX_TIMEOUT) > 0) {
      throw new InvalidQueueInputException("timeout of job " + job + " is " + timeout()
          + "; expected zero (none) to " + MAX_TIMEOUT);
    }
    args().ifPresent(a -> checkArgs(a, "args of job " + job));
    Duration estimate = micros(estimate());
    Duration timeout = micros(timeout());
    if (estimate.equals(estimate()) && timeout.equals(timeout())) {
      return this;
    }
    return builder().from(this).estimate(estimate).timeout(timeout).build();
  }

  private static void checkArgs(String args, String what) {
    if (args.length() > MAX_ARGS_BYTES) {
      throw new InvalidQueueInputException(what + " have " + args.length() + " characters; expected at most "
          + MAX_ARGS_BYTES + " bytes (64 KiB) in UTF-8");
    }
    Checks.storable(args, what);
    int bytes = args.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_ARGS_BYTES) {
      throw new InvalidQueueInputException(what + " have " + bytes + " bytes in UTF-8; expected at most "
          + MAX_ARGS_BYTES + " (64 KiB)");
    }
  }

  private static Duration micros(Duration d) {
    return Duration.ofSeconds(d.getSeconds(), d.getNano() / 1_000 * 1_000L);
  }

  /**
   * A required job without GPUs.
   *
   * @param benchmarkGroup the group
   * @param collectorTag the tag of the collectors that run it
   * @return the spec
   * @throws InvalidQueueInputException when a name is missing or not a name
   */
  public static JobSpec required(String benchmarkGroup, String collectorTag) {
    return of(benchmarkGroup, collectorTag, false);
  }

  /**
   * An optional job without GPUs.
   *
   * @param benchmarkGroup the group
   * @param collectorTag the tag of the collectors that run it
   * @return the spec
   * @throws InvalidQueueInputException when a name is missing or not a name
   */
  public static JobSpec optionalJob(String benchmarkGroup, String collectorTag) {
    return of(benchmarkGroup, collectorTag, true);
  }

  private static JobSpec of(String benchmarkGroup, String collectorTag, boolean optional) {
    return builder().benchmarkGroup(Checks.token(benchmarkGroup, "benchmark group"))
        .collectorTag(Checks.token(collectorTag, "collector tag")).optional(optional).build();
  }

  /**
   * This job with a GPU budget and an estimated duration.
   *
   * @param gpus how many GPU devices it needs
   * @param estimate how long it is expected to run (whole microseconds are kept)
   * @return the spec
   */
  public JobSpec withGpus(int gpus, Duration estimate) {
    return builder().from(this).gpus(gpus)
        .estimate(Checks.present(estimate, "estimated duration of job " + this)).build();
  }

  /**
   * This job as part of a run of a cadence, which the fleet shares of its pool cap.
   *
   * @param cadence the cadence, e.g. {@code weekly}; the empty string for none
   * @return the spec
   * @throws InvalidQueueInputException when the cadence is not a name
   */
  public JobSpec withCadence(String cadence) {
    return builder().from(this)
        .cadence(Checks.present(cadence, "cadence of job " + this + " (the empty string for none)")).build();
  }

  /**
   * This job with a timeout: the longest it may run once claimed.
   *
   * @param timeout the timeout, zero for none, at most {@link #MAX_TIMEOUT} (whole microseconds are kept)
   * @return the spec
   * @throws InvalidQueueInputException when the timeout is negative or too long
   */
  public JobSpec withTimeout(Duration timeout) {
    return builder().from(this).timeout(Checks.present(timeout, "timeout of job " + this + " (zero for none)"))
        .build();
  }

  /**
   * This job with args: host-defined work the collector receives with the job.
   *
   * @param args the text, at most {@value #MAX_ARGS_BYTES} bytes in UTF-8, no NUL, no unpaired surrogate
   * @return the spec
   * @throws InvalidQueueInputException when the args are missing, too large or not storable
   */
  public JobSpec withArgs(String args) {
    return builder().from(this).args(Checks.present(args, "args of job " + this)).build();
  }

  /**
   * Whether the job has a timeout of its own.
   *
   * @return true when {@link #timeout()} is not zero
   */
  public boolean hasTimeout() {
    return !timeout().isZero();
  }

  /**
   * Whether the job belongs to a run of a cadence.
   *
   * @return true when {@link #cadence()} is not empty
   */
  public boolean hasCadence() {
    return !cadence().isEmpty();
  }

  /**
   * The pool the job runs in: its collector tag.
   *
   * @return the tag
   */
  public String pool() {
    return collectorTag();
  }

  /**
   * Whether another spec names the same job of a request (same group and tag).
   *
   * @param other the other spec
   * @return true for the same group and tag
   */
  public boolean sameJobAs(JobSpec other) {
    return benchmarkGroup().equals(other.benchmarkGroup()) && collectorTag().equals(other.collectorTag());
  }

  @Override
  public String toString() {
    return benchmarkGroup() + "@" + collectorTag() + (gpus() > 0 ? " [" + gpus() + " GPUs]" : "")
        + (optional() ? " (optional)" : "") + (cadence().isEmpty() ? "" : " {" + cadence() + "}");
  }

  /**
   * A new builder; {@code build()} checks every rule.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link JobSpec}. */
  public static final class Builder extends ImmutableJobSpec.Builder {
    Builder() {}
  }
}

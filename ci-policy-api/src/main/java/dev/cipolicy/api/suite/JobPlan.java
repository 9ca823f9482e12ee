package dev.cipolicy.api.suite;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.policy.RunCommand;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * One queue job of a run, ready to start on a GPU host: one shard of one suite with its name, where it
 * queues, what it needs and the command that runs it, rendered from the policy's {@link RunCommand} and the
 * run's {@link RunFacts}. The host sets each {@link #deviceEnv()} variable to the devices the queue granted
 * and starts {@link #argv()} without a shell (in {@link #image()} when present).
 */
@Value.Immutable
@ValueStyle
public abstract class JobPlan {
  /**
   * The grammar of a job name, a token a queue accepts: a letter or digit, then up to 99 letters, digits,
   * {@code .}, {@code _} or {@code -}.
   */
  public static final String NAME_GRAMMAR = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

  private static final Pattern NAME = Pattern.compile(NAME_GRAMMAR);

  /**
   * The job's name, unique in its run.
   *
   * @return {@code <suite>-<shard>of<shards>}, e.g. {@code stage-c-4-gpu-h200-0of3}
   */
  public abstract String name();

  /**
   * The suite's backend.
   *
   * @return e.g. {@code cuda}
   */
  public abstract String backend();

  /**
   * The suite.
   *
   * @return e.g. {@code stage-c-4-gpu-h200}
   */
  public abstract String suite();

  /**
   * The shard, a 0-based partition id.
   *
   * @return 0 to {@link #shards()} - 1
   */
  public abstract int shard();

  /**
   * The suite's shard count, the partition size.
   *
   * @return 1 to {@link Suite#MAX_SHARDS}
   */
  public abstract int shards();

  /**
   * The runner pool the job queues on.
   *
   * @return the suite's pool, absent when it declares none
   */
  public abstract Optional<String> pool();

  /**
   * The GPUs the job needs: the suite's GPU budget.
   *
   * @return 0 for a CPU suite, at most {@link Suite#MAX_GPUS}
   */
  public abstract int gpus();

  /**
   * The expected duration: the sum of the registered estimates of the shard's tests.
   *
   * @return seconds, finite and not negative
   */
  public abstract double estimatedSeconds();

  /**
   * When the job is cut off: the policy's timeout rule applied to the estimate.
   *
   * @return seconds, at least 1
   */
  public abstract long timeoutSeconds();

  /**
   * The run's cadence, which the queue's fleet shares cap.
   *
   * @return e.g. {@code nightly}
   */
  public abstract String cadence();

  /**
   * The command, rendered: one element per template, the program first.
   *
   * @return at least one argument
   */
  public abstract List<String> argv();

  /**
   * The environment variables the command gets, rendered, in declaration order.
   *
   * @return name to value
   */
  public abstract Map<String, String> env();

  /**
   * The container image the command runs in, rendered.
   *
   * @return absent when it runs directly on the host
   */
  public abstract Optional<String> image();

  /**
   * The variables the host sets to the granted device indices, joined with commas.
   *
   * @return the backend's {@code device_env}; empty for a CPU job
   */
  public abstract List<String> deviceEnv();

  /**
   * Rejects a name outside {@link #NAME_GRAMMAR}, a shard outside 0 to {@code shards - 1}, a shard count or
   * GPU count out of range, an estimate that is negative or not finite, a timeout below 1 s, an empty
   * command, and a GPU job without device variables.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("JobPlan")
        .require(NAME.matcher(name()).matches(), "name", () -> "job name '" + name() + "' is not a token;"
            + " expected " + NAME_GRAMMAR)
        .nonEmpty("backend", backend())
        .nonEmpty("suite", suite())
        .atLeast("shards", shards(), 1).atMost("shards", shards(), Suite.MAX_SHARDS)
        .require(shard() >= 0 && shard() < shards(), "shard", () -> "must be 0 to " + (shards() - 1)
            + " (shard count " + shards() + "), got " + shard())
        .atLeast("gpus", gpus(), 0).atMost("gpus", gpus(), Suite.MAX_GPUS)
        .require(Double.isFinite(estimatedSeconds()) && estimatedSeconds() >= 0, "estimatedSeconds",
            () -> "must be a finite number of seconds, at least 0; got " + estimatedSeconds())
        .atLeast("timeoutSeconds", timeoutSeconds(), 1)
        .nonEmpty("cadence", cadence())
        .require(!argv().isEmpty(), "argv", () -> "the command is empty; expected the program and its arguments")
        .require(gpus() == 0 || !deviceEnv().isEmpty(), "deviceEnv", () -> "a job granted " + gpus()
            + " GPUs needs the variables that carry its devices")
        .done();
  }

  /**
   * The name of the job of one shard.
   *
   * @param suite the suite
   * @param shard the 0-based shard
   * @param shards the shard count
   * @return {@code <suite>-<shard>of<shards>}
   */
  public static String nameOf(String suite, int shard, int shards) {
    return suite + "-" + shard + "of" + shards;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link JobPlan}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableJobPlan.Builder {
    Builder() {}
  }
}

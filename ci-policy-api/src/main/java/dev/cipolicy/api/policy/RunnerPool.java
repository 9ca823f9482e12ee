package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * A pool of self-hosted runners that jobs are queued on, named by suites' {@link Suite#pool()}: how many
 * runners it has (each runs one job at a time) and how many GPUs they hold together. The fleet shares of
 * the cadences ({@link FleetShare}) are measured against it.
 */
@Value.Immutable
@ValueStyle
public abstract class RunnerPool {
  private static final Pattern NAME = Pattern.compile(Suite.RUNNER_LABEL_GRAMMAR);

  /**
   * The pool's name, as suites name it.
   *
   * @return e.g. {@code h200}, matching {@link Suite#RUNNER_LABEL_GRAMMAR}
   */
  public abstract String name();

  /**
   * The runners of the pool: how many jobs it runs at once.
   *
   * @return at least 1
   */
  public abstract int runners();

  /**
   * The GPUs of the pool's runners together.
   *
   * @return at least 0; 0 (the default) for a CPU pool
   */
  @Value.Default
  public int gpus() {
    return 0;
  }

  /**
   * What the pool is, for people.
   *
   * @return e.g. {@code one H200 node split 2+2+4 and one used whole}
   */
  public abstract Optional<String> description();

  /**
   * How much of the pool a share of this unit can take at most.
   *
   * @param unit runners or GPUs
   * @return {@link #runners()} or {@link #gpus()}
   */
  public int capacity(FleetShare.Unit unit) {
    return unit == FleetShare.Unit.RUNNERS ? runners() : gpus();
  }

  /**
   * Rejects a name outside {@link Suite#RUNNER_LABEL_GRAMMAR}, fewer than 1 runner and fewer than 0 GPUs.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("RunnerPool")
        .require(NAME.matcher(name()).matches(), "name", () -> "pool name '" + name()
            + "' is not shell-safe; expected 1 to 64 characters matching " + Suite.RUNNER_LABEL_GRAMMAR)
        .atLeast("runners", runners(), 1)
        .atLeast("gpus", gpus(), 0)
        .done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link RunnerPool}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRunnerPool.Builder {
    Builder() {}
  }
}

package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * Why a run happens and how broad it is, with the flags.
 */
@Value.Immutable
@ValueStyle
public abstract class CadenceDefinition {
  /**
   * The cadence name.
   *
   * @return e.g. {@code nightly}
   */
  public abstract String name();

  /**
   * What the cadence is for.
   *
   * @return a human description, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * Whether nightly-only tests are admitted.
   *
   * @return the flag
   */
  public abstract boolean admitNightlyTests();

  /**
   * Whether fast-fail is bypassed for every run of this cadence.
   *
   * @return the flag
   */
  public abstract boolean bypassFastfail();

  /**
   * Whether runs of this cadence write metric baselines.
   *
   * @return the flag
   */
  public abstract boolean writeBaseline();

  /**
   * The max-parallel of every GPU matrix in this cadence, overriding the shard count (weekly: 1).
   *
   * @return the cap, if any
   */
  public abstract Optional<Integer> gpuMaxParallel();

  /**
   * Rejects an empty name and a GPU max-parallel below 1.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("CadenceDefinition").nonEmpty("name", name());
    gpuMaxParallel().ifPresent(n -> check.atLeast("gpuMaxParallel", n, 1));
    check.done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link CadenceDefinition}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableCadenceDefinition.Builder {
    Builder() {}
  }
}

package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import org.immutables.value.Value;

/** The per-file timeout: {@code max(baseSeconds, floor(est_time × factor))}. */
@Value.Immutable
@ValueStyle
public abstract class TimeoutRule {
  /**
   * The minimum timeout.
   *
   * @return seconds, 1800 by default
   */
  @Value.Default
  public long baseSeconds() {
    return 1800;
  }

  /**
   * The factor applied to the estimated time.
   *
   * @return 1.25 by default
   */
  @Value.Default
  public double factor() {
    return 1.25;
  }

  /**
   * The timeout for a test with the given estimate.
   *
   * @param estTimeSeconds the estimated time
   * @return {@code max(base, floor(est × factor))} seconds
   */
  public long timeoutFor(double estTimeSeconds) {
    return Math.max(baseSeconds(), (long) Math.floor(estTimeSeconds * factor()));
  }

  /**
   * The reference rule: base 1800 s, factor 1.25.
   *
   * @return the rule
   */
  public static TimeoutRule defaults() {
    return builder().build();
  }

  /**
   * Rejects a base below 1 s and a factor that is not a positive finite number.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("TimeoutRule").atLeast("baseSeconds", baseSeconds(), 1)
        .require(factor() > 0 && Double.isFinite(factor()), "factor",
            () -> "must be a positive finite number, got " + factor())
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

  /** Builds a {@link TimeoutRule}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableTimeoutRule.Builder {
    Builder() {}
  }
}

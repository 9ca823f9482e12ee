package dev.cipolicy.api.policy;

import dev.cipolicy.api.internal.ValueStyle;
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
    return ImmutableTimeoutRule.builder().build();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableTimeoutRule.Builder builder() {
    return ImmutableTimeoutRule.builder();
  }
}

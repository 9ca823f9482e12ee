package dev.cipolicy.api.policy;

import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * One exact cron string of the schedule table (UTC) and the cadence it resolves to. An unknown cron is
 * an error, never a default.
 */
@Value.Immutable
@ValueStyle
public abstract class ScheduleRule {
  /** The most schedules a policy's schedule table may hold: 256, checked with the policy. */
  public static final int MAX_SCHEDULES = 256;

  /**
   * The cron string exactly as the workflow declares it.
   *
   * @return e.g. {@code 0 15 * * 6}
   */
  public abstract String cron();

  /**
   * The cadence a run fired by this cron gets.
   *
   * @return a declared cadence name
   */
  public abstract String cadence();

  /**
   * Raw labels the scheduled run carries, as a pull request would (e.g. {@code run-ci-all}).
   *
   * @return raw labels, usually empty
   */
  public abstract List<String> labels();

  /**
   * What the schedule is for.
   *
   * @return a human description, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ScheduleRule}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableScheduleRule.Builder {
    Builder() {}
  }
}

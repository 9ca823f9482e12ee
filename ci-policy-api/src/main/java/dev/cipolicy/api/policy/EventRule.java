package dev.cipolicy.api.policy;

import dev.cipolicy.api.internal.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * How a trigger event chooses its cadence and raw labels.
 */
@Value.Immutable
@ValueStyle
public abstract class EventRule {
  /** Where an event takes its cadence and raw labels from. */
  public enum Source {
    /** The declared cadence and no raw labels. */
    FIXED,
    /** Canonical PR labels; a workflow label may switch the declared cadence. */
    PULL_REQUEST_LABELS,
    /** The exact cron lookup in the schedule table. */
    SCHEDULE_TABLE
  }

  /**
   * The event name as GitHub reports it.
   *
   * @return e.g. {@code pull_request}
   */
  public abstract String event();

  /**
   * Where the cadence and labels come from.
   *
   * @return the source
   */
  public abstract Source source();

  /**
   * The cadence for {@link Source#FIXED} and {@link Source#PULL_REQUEST_LABELS} events.
   *
   * @return the cadence, absent for schedule-table events
   */
  public abstract Optional<String> cadence();

  /**
   * Whether GPU stages match every known label for this event (manual dispatch), without changing
   * the cadence or nightly admission.
   *
   * @return the flag
   */
  @Value.Default
  public boolean matchAllLabels() {
    return false;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableEventRule.Builder builder() {
    return ImmutableEventRule.builder();
  }
}

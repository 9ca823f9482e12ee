package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Locale;
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
   * Rejects an empty event name and a cadence that does not fit the source: fixed and pull-request-label
   * events need one, schedule-table events take theirs from the schedule table.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("EventRule").nonEmpty("event", event())
        .require(source() == Source.SCHEDULE_TABLE || cadence().isPresent(), "",
            () -> "missing required field 'cadence' for a " + source().name().toLowerCase(Locale.ROOT) + " event")
        .require(source() != Source.SCHEDULE_TABLE || cadence().isEmpty(), "cadence",
            () -> "a schedule_table event takes its cadence from the schedule table; remove 'cadence'")
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

  /** Builds a {@link EventRule}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableEventRule.Builder {
    Builder() {}
  }
}

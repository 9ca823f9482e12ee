package dev.cipolicy.api.run;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import org.immutables.value.Value;

/** The outcome of trigger resolution: which rule chose the cadence, and the run policy. */
@Value.Immutable
@ValueStyle
public abstract class TriggerResolution {

  /** Which rule chose the cadence. */
  public enum Source {
    /** A non-empty cadence override. */
    CADENCE_OVERRIDE,
    /** Canonical PR labels. */
    PULL_REQUEST_LABELS,
    /** The exact cron lookup. */
    SCHEDULE_TABLE,
    /** A fixed cadence for the event (manual dispatch). */
    FIXED
  }

  /**
   * The event the run was started by.
   *
   * @return the event name
   */
  public abstract String eventName();

  /**
   * Which rule chose the cadence.
   *
   * @return the source
   */
  public abstract Source source();

  /**
   * Whether GPU stages match every known label (manual dispatch).
   *
   * @return the flag
   */
  public abstract boolean matchAllLabels();

  /**
   * The resolved run policy; its raw labels are the run's raw labels.
   *
   * @return the run policy
   */
  public abstract RunPolicy runPolicy();

  /**
   * Inputs that were ignored: PR labels dropped by the canonical filter that look like a mistyped
   * request, then the run policy's own warnings.
   *
   * @return warnings in input order
   */
  public abstract List<Warning> warnings();

  /**
   * The full explanation: the trigger rule followed by the run-policy rules.
   *
   * @return the explanation
   */
  public abstract Explanation explanation();

  /**
   * Rejects an empty event name, unless a cadence override chose the cadence.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("TriggerResolution")
        .require(!eventName().isEmpty() || source() == Source.CADENCE_OVERRIDE, "eventName",
            () -> "must not be empty (only a cadence override resolves a run without an event)")
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

  /** Builds a {@link TriggerResolution}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableTriggerResolution.Builder {
    Builder() {}
  }
}

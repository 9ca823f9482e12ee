package dev.cipolicy.api.run;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What started a run, as GitHub Actions reports it. Empty strings count as absent, so the
 * values of unset workflow expressions can be passed as they are.
 */
@Value.Immutable
@ValueStyle
public abstract class TriggerInput {

  /**
   * The event name.
   *
   * @return e.g. {@code pull_request}, {@code schedule}, {@code workflow_dispatch}
   */
  public abstract String eventName();

  /**
   * The cron string of a scheduled run.
   *
   * @return the schedule, if any
   */
  public abstract Optional<String> schedule();

  /**
   * The PR labels as a JSON array of strings, e.g. {@code ["run-ci-megatron"]}.
   *
   * @return the JSON text, if any
   */
  public abstract Optional<String> prLabelsJson();

  /**
   * A cadence that overrides everything else when non-empty.
   *
   * @return the override, if any
   */
  public abstract Optional<String> cadenceOverride();

  /**
   * Rejects an empty event name, unless a cadence override decides the run without one.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("TriggerInput")
        .require(!eventName().isEmpty() || cadenceOverride().filter(c -> !c.isEmpty()).isPresent(), "eventName",
            () -> "must not be empty (only a non-empty cadence override decides a run without an event)")
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

  /** Builds a {@link TriggerInput}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableTriggerInput.Builder {
    Builder() {}
  }
}

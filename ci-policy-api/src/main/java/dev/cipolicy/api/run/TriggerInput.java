package dev.cipolicy.api.run;

import dev.cipolicy.api.internal.ValueStyle;
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
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableTriggerInput.Builder builder() {
    return ImmutableTriggerInput.builder();
  }
}

package dev.cipolicy.api.run;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What started a run: the event name, the cron of a scheduled run, the PR's labels and a cadence override.
 * An empty schedule or override counts as absent, so the values of unset workflow expressions can be passed
 * as they are.
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
   * The PR's label names in the order the PR reports them, e.g. {@code [run-ci-megatron, bypass-fastfail]}.
   * A rule that takes the cadence from the PR labels needs them (an empty list is a PR without labels);
   * other rules ignore them.
   *
   * @return the labels, absent when they were not given
   */
  public abstract Optional<List<String>> prLabels();

  /**
   * A cadence that overrides everything else when non-empty.
   *
   * @return the override, if any
   */
  public abstract Optional<String> cadenceOverride();

  /**
   * Rejects an empty event name (unless a cadence override decides the run without one), keeps an
   * immutable copy of the PR labels and rejects a missing label name.
   *
   * @return this input, or a copy holding immutable labels
   * @throws InvalidValueException when the event name is empty
   * @throws InvalidInputException when a PR label is null
   */
  @Value.Check
  @SuppressWarnings("ReferenceEquality") // identity tells that the labels are already the immutable copy
  protected TriggerInput normalize() {
    ValueCheck.of("TriggerInput")
        .require(!eventName().isEmpty() || cadenceOverride().filter(c -> !c.isEmpty()).isPresent(), "eventName",
            () -> "must not be empty (only a non-empty cadence override decides a run without an event)")
        .done();
    Optional<List<String>> labels = prLabels();
    if (labels.isEmpty()) {
      return this;
    }
    List<String> given = labels.get();
    for (int i = 0; i < given.size(); i++) {
      if (given.get(i) == null) {
        throw new InvalidInputException("trigger input prLabels[" + i + "] is null; expected a label name");
      }
    }
    List<String> copy = List.copyOf(given);
    return copy == given ? this : builder().from(this).prLabels(copy).build();
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

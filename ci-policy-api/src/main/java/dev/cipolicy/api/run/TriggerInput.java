package dev.cipolicy.api.run;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.internal.ValueStyle;
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
   * Keeps an immutable copy of the PR labels and rejects a missing label name.
   *
   * @return this input, or a copy holding immutable labels
   * @throws InvalidInputException when a PR label is null
   */
  @Value.Check
  @SuppressWarnings("ReferenceEquality") // identity tells that the labels are already the immutable copy
  protected TriggerInput normalize() {
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
    return copy == given ? this : ImmutableTriggerInput.copyOf(this).withPrLabels(copy);
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableTriggerInput.Builder builder() {
    return ImmutableTriggerInput.builder();
  }
}

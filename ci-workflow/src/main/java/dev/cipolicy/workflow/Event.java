package dev.cipolicy.workflow;

import dev.cipolicy.api.value.ValueCheck;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The event that starts a simulated run. Without a payload, the simulation knows {@code github.event_name},
 * {@code github.event.action}, {@code github.event.schedule}, the inputs and the pull request's label names,
 * and nothing else of {@code github.event} (it is {@code unknown}); with one, the payload is the whole of
 * {@code github.event} and a missing property is null, as on GitHub.
 *
 * @param name the event name, e.g. {@code pull_request}
 * @param action the activity type, e.g. {@code labeled}
 * @param schedule the cron of a {@code schedule} event
 * @param inputs {@code workflow_dispatch} / {@code workflow_call} inputs
 * @param labels the pull request's label names
 * @param payload the whole event payload as a JSON-like value, when given
 */
public record Event(String name, Optional<String> action, Optional<String> schedule, Map<String, String> inputs,
    List<String> labels, Optional<ExprValue> payload) {
  /** Validates the name and copies the collections. */
  public Event {
    inputs = Map.copyOf(inputs);
    labels = List.copyOf(labels);
    ValueCheck.of("Event").nonEmpty("name", name).done();
  }

  /**
   * An event known by its name only.
   *
   * @param name the event name
   * @return the event
   */
  public static Event named(String name) {
    return new Event(name, Optional.empty(), Optional.empty(), Map.of(), List.of(), Optional.empty());
  }
}

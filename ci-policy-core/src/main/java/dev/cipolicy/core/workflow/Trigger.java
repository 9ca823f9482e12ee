package dev.cipolicy.core.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.List;

/**
 * One event a workflow subscribes to under {@code on:}; the loading adapter fills in the rest of the
 * trigger (crons, inputs) in a later version.
 *
 * @param event the event name, e.g. {@code pull_request}
 * @param types the activity types listed under {@code types:}, empty for GitHub's defaults
 * @param location where the event is named
 */
public record Trigger(String event, List<String> types, SourceLocation location) {
  /** Validates the event name and copies the types. */
  public Trigger {
    types = List.copyOf(types);
    ValueCheck.of("Trigger").nonEmpty("event", event).done();
  }
}

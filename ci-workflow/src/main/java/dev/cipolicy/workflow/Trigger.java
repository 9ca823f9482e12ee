package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.List;

/**
 * One event a workflow subscribes to under {@code on:}.
 *
 * @param event the event name, e.g. {@code pull_request}
 * @param types the activity types listed under {@code types:}, empty for GitHub's defaults
 * @param crons the cron strings of a {@code schedule} trigger (its {@code cron:} entries), in order
 * @param inputs the inputs of a {@code workflow_dispatch} or {@code workflow_call} trigger, in order
 * @param location where the event is named
 */
public record Trigger(String event, List<String> types, List<String> crons, List<WorkflowInput> inputs,
    SourceLocation location) {
  /** Validates the event name and copies the lists. */
  public Trigger {
    types = List.copyOf(types);
    crons = List.copyOf(crons);
    inputs = List.copyOf(inputs);
    ValueCheck.of("Trigger").nonEmpty("event", event).done();
  }

  /**
   * A trigger without crons or inputs.
   *
   * @param event the event name
   * @param types the activity types
   * @param location where the event is named
   */
  public Trigger(String event, List<String> types, SourceLocation location) {
    this(event, types, List.of(), List.of(), location);
  }
}

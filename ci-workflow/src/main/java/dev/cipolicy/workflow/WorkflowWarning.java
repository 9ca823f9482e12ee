package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;

/**
 * Something of a workflow file the model does not follow, e.g. a job that calls a remote reusable workflow
 * (simulated as one opaque job).
 *
 * @param location where the construct is
 * @param job the job it belongs to, empty for the workflow itself
 * @param message what is not modelled and how the simulation treats it
 */
public record WorkflowWarning(SourceLocation location, String job, String message) {
  @Override
  public String toString() {
    return location + ": " + (job.isEmpty() ? "" : "job '" + job + "': ") + message;
  }
}

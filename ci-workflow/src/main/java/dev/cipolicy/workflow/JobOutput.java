package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;

/**
 * One entry of a job's {@code outputs:}.
 *
 * @param name the output name
 * @param value its value as written, usually a {@code ${{ steps.X.outputs.Y }}} template
 * @param location where the entry is
 */
public record JobOutput(String name, String value, SourceLocation location) {
  /** Validates the name. */
  public JobOutput {
    ValueCheck.of("JobOutput").nonEmpty("name", name).done();
  }
}

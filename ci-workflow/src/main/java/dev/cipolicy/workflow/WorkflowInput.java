package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.Optional;

/**
 * One input of a {@code workflow_dispatch} or {@code workflow_call} trigger.
 *
 * @param name the input name
 * @param type its {@code type:} ({@code string}, {@code boolean}, {@code choice}, ...), when given
 * @param required {@code required:} (false by default)
 * @param defaultValue {@code default:} as text, when given
 * @param location where the input is named
 */
public record WorkflowInput(String name, Optional<String> type, boolean required, Optional<String> defaultValue,
    SourceLocation location) {
  /** Validates the name. */
  public WorkflowInput {
    ValueCheck.of("WorkflowInput").nonEmpty("name", name).done();
  }
}

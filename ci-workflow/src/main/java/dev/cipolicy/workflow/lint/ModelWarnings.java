package dev.cipolicy.workflow.lint;

import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowWarning;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.List;
import java.util.Optional;

/**
 * The rule {@link LintRule#WORKFLOW_MODEL}: what the model could not follow, as warnings.
 */
final class ModelWarnings implements LintCheck {
  private final LintRun run;

  ModelWarnings(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    for (Workflow w : run.workflows()) {
      for (WorkflowWarning warning : w.warnings()) {
        out.add(new LintFinding(LintRule.WORKFLOW_MODEL, Severity.WARNING, warning.location(),
            warning.job().isEmpty() ? Optional.empty() : Optional.of(warning.job()), warning.message()));
      }
    }
  }
}

package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#WORKFLOW_ROLES}: the roles name what exists (found while the run declares the
 * workflows), and a workflow without roles is a warning.
 */
final class WorkflowRolesCheck implements LintCheck {
  private final LintRun run;

  WorkflowRolesCheck(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    out.addAll(run.rolesFindings());
    if (run.policy().isEmpty()) {
      return;
    }
    Set<String> withRoles = new LinkedHashSet<>();
    run.policy().get().workflowRoles().forEach(r -> withRoles.add(r.file()));
    for (Workflow w : run.byFile().values()) {
      if (!withRoles.contains(w.file()) && !LintRun.reusableOnly(w)) {
        out.add(withoutRoles(w));
      }
    }
  }

  private LintFinding withoutRoles(Workflow w) {
    String name = w.file().replaceFirst("\\.ya?ml$", "");
    return new LintFinding(LintRule.WORKFLOW_ROLES, Severity.WARNING, new SourceLocation(w.file(), 1, 1),
        Optional.empty(), "the policy declares no roles for workflow " + w.file() + ", so "
            + LintRule.BYPASS_KEEPS_STAGES.id() + ", " + LintRule.STAGE_CONSUMES_POLICY.id() + ", "
            + LintRule.SKIP_LIST_HONOURED.id() + ", " + LintRule.POOL_SHARE.id() + " and "
            + LintRule.SUITE_HAS_ONE_JOB.id() + " were not checked on it; add `workflows: {" + name + ": {roles:"
            + " {file: " + w.file() + ", policy_job: <the job that runs ci-policy resolve>}}}` to the policy");
  }
}

package dev.cipolicy.workflow.lint;

import java.util.Locale;

/**
 * The invariants {@link WorkflowLint} proves on a set of workflow files, each by simulating the workflows
 * with {@link dev.cipolicy.workflow.WorkflowSimulator}. {@link #id()} is the rule's name in findings, annotations and docs.
 */
public enum LintRule {
  /** With the bypass output true and the fast-fail gate failed, every stage job not skipped still runs. */
  BYPASS_KEEPS_STAGES,
  /** A closed pull request runs no job, and a workflow with PR stages subscribes to {@code closed}. */
  CLOSED_RUNS_NOTHING,
  /** Every stage job needs the policy job and passes its cadence and labels to what it runs. */
  STAGE_CONSUMES_POLICY,
  /** Every workflow cron is in the policy's schedule table, and every table cron in some workflow. */
  CRON_TABLE,
  /** Every suite has exactly one stage job, and a job named like a suite runs a declared suite. */
  SUITE_HAS_ONE_JOB,
  /** Under a throttled cadence, the stage jobs never hold more runners of a pool at once than its share. */
  POOL_SHARE,
  /** A stage job listed in the skipped stages does not run. */
  SKIP_LIST_HONOURED,
  /**
   * The roles the policy declares name a workflow file, jobs and outputs that exist; a workflow the policy
   * declares no roles for is a warning, since the rules that need roles were not checked on it.
   */
  WORKFLOW_ROLES,
  /** A job reads {@code needs.X} only for a job {@code X} it needs directly (GitHub sets no other). */
  NEEDS_DIRECT,
  /** Something of a workflow the model does not follow (a remote reusable workflow, ...). */
  WORKFLOW_MODEL;

  /**
   * The rule's id.
   *
   * @return e.g. {@code bypass-keeps-stages}
   */
  public String id() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}

package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.WorkflowRoles;
import dev.cipolicy.core.ProblemLocator;
import dev.cipolicy.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Proves a policy's invariants on a set of workflow files by simulating them (the rules of
 * {@link LintRule}). The policy says what each workflow's jobs are for ({@link WorkflowRoles}); each rule
 * builds the scenarios its invariant speaks of — every event the workflow subscribes to, the policy job's
 * outputs set as the policy would set them, the fast-fail gate failed — and reports every job that breaks it,
 * located at the construct to change, with how to fix it.
 *
 * <p>Without a policy only {@link LintRule#CLOSED_RUNS_NOTHING} (for workflows subscribed to {@code closed})
 * and the model's warnings apply. Pure and deterministic: the same inputs give the same findings in the same
 * order ({@link LintFinding#ORDER}).
 *
 * <p>Each rule is one package-private class implementing {@link LintCheck} ({@code ClosedRunsNothing},
 * {@code BypassKeepsStages}, ...), reading what the rules share from one {@code LintRun}.
 */
public final class WorkflowLint {
  /** The most workflows one lint reads: 1,000. */
  public static final int MAX_WORKFLOWS = 1_000;

  /** The most stage jobs of one pool whose every overlap {@link LintRule#POOL_SHARE} tries: 16. */
  static final int MAX_EXACT_POOL_JOBS = 16;

  private final Optional<Policy> policy;
  private final ProblemLocator locator;
  private final Optional<Set<String>> registeredSuites;

  private WorkflowLint(Optional<Policy> policy, ProblemLocator locator, Optional<Set<String>> registeredSuites) {
    this.policy = policy;
    this.locator = locator;
    this.registeredSuites = registeredSuites;
  }

  /**
   * A lint without a policy: only what holds for any workflow.
   *
   * @return the lint
   */
  public static WorkflowLint withoutPolicy() {
    return new WorkflowLint(Optional.empty(), ProblemLocator.NONE, Optional.empty());
  }

  /**
   * A lint of the invariants a policy declares.
   *
   * @param policy the policy
   * @param locator where the policy's fields are written, for findings about the policy
   * @return the lint
   */
  public static WorkflowLint of(Policy policy, ProblemLocator locator) {
    return new WorkflowLint(Optional.of(policy), locator, Optional.empty());
  }

  /**
   * This lint, told which suites have registered tests: a suite without any needs no stage job.
   *
   * @param suites the suites with at least one registration
   * @return the new lint
   */
  public WorkflowLint withRegisteredSuites(Set<String> suites) {
    return new WorkflowLint(policy, locator, Optional.of(Set.copyOf(suites)));
  }

  /**
   * Lints a set of workflows (the files of one workflows directory).
   *
   * @param workflows the workflows, each with its file name
   * @return the findings in {@link LintFinding#ORDER}
   * @throws dev.cipolicy.api.InvalidInputException for more than {@link #MAX_WORKFLOWS} workflows
   */
  public List<LintFinding> lint(List<Workflow> workflows) {
    if (workflows.size() > MAX_WORKFLOWS) {
      throw new dev.cipolicy.api.InvalidInputException("a workflow lint reads at most " + MAX_WORKFLOWS
          + " workflows, got " + workflows.size());
    }
    LintRun run = new LintRun(policy, locator, registeredSuites, workflows);
    List<LintCheck> checks = List.of(new ModelWarnings(run), new WorkflowRolesCheck(run), new NeedsDirect(run),
        new ClosedRunsNothing(run), new StageConsumesPolicy(run), new BypassKeepsStages(run),
        new SkipListHonoured(run), new PoolShare(run), new CronTable(run), new SuiteHasOneJob(run));
    List<LintFinding> out = new ArrayList<>();
    for (LintCheck check : checks) {
      check.check(out);
    }
    out.sort(LintFinding.ORDER);
    return List.copyOf(out);
  }

  /**
   * The workflows of a lint the policy declares no roles for, which the rules needing roles did not check:
   * every workflow but those the roles name and those that only run when called ({@code workflow_call}).
   *
   * @param workflows the workflows linted
   * @return their file names, in order; empty without a policy
   */
  public List<String> withoutRoles(List<Workflow> workflows) {
    if (policy.isEmpty()) {
      return List.of();
    }
    Set<String> withRoles = new LinkedHashSet<>();
    policy.get().workflowRoles().forEach(r -> withRoles.add(r.file()));
    Set<String> out = new LinkedHashSet<>();
    for (Workflow w : workflows) {
      if (!withRoles.contains(w.file()) && !LintRun.reusableOnly(w)) {
        out.add(w.file());
      }
    }
    return List.copyOf(out);
  }
}

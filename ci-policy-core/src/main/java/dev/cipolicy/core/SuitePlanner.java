package dev.cipolicy.core;

import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.Registration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns a resolved run into the jobs a scheduler queues: for every suite that runs, its selected tests
 * (as {@link SuiteRegistry#select} chooses them, the same as a {@code plan-suite} run) split into the
 * suite's shards by {@link SuiteRegistry#shard}, one {@link PlannedJob} per shard that has a test, with the
 * suite's GPU budget and pool, the shard's estimated time and the policy's timeout for it. Pure,
 * immutable and thread-safe: the same registry, run and stage selection give the same list.
 *
 * <p>A suite runs unless the stage selection skips it; a suite scheduled by an external nightly workflow
 * runs only when the run admits nightly tests (a nightly, weekly or release run, never a pull request).
 * The jobs come in policy order: backends, then their suites, then shards by index.
 *
 * <pre>{@code
 * SuitePlanner planner = SuitePlanner.of(registry);
 * List<PlannedJob> jobs = planner.plan(resolution, stageSelection);
 * }</pre>
 */
public final class SuitePlanner {
  private final SuiteRegistry registry;
  private final Policy policy;

  private SuitePlanner(SuiteRegistry registry) {
    this.registry = registry;
    this.policy = registry.resolver().policy();
  }

  /**
   * A planner over a checked registry.
   *
   * @param registry the registrations and their policy
   * @return the planner
   */
  public static SuitePlanner of(SuiteRegistry registry) {
    return new SuitePlanner(registry);
  }

  /**
   * The jobs of a resolved trigger: its run policy, and every label matched on GPU stages when the trigger
   * says so (a manual dispatch).
   *
   * @param resolution the resolved trigger
   * @param stages the stage selection of the run (its skipped stages are not planned)
   * @return the planned jobs, in policy order; empty when nothing is selected
   */
  public List<PlannedJob> plan(TriggerResolution resolution, StageSelection stages) {
    return plan(resolution.runPolicy(), resolution.matchAllLabels(), stages);
  }

  /**
   * The jobs of a run policy, with labels matched as the run policy includes them.
   *
   * @param run the resolved run policy
   * @param stages the stage selection of the run (its skipped stages are not planned)
   * @return the planned jobs, in policy order; empty when nothing is selected
   */
  public List<PlannedJob> plan(RunPolicy run, StageSelection stages) {
    return plan(run, false, stages);
  }

  /**
   * The jobs of a run policy.
   *
   * @param run the resolved run policy
   * @param matchAllLabels manual dispatch: GPU stages match every known label
   * @param stages the stage selection of the run (its skipped stages are not planned)
   * @return the planned jobs, in policy order; empty when nothing is selected
   */
  public List<PlannedJob> plan(RunPolicy run, boolean matchAllLabels, StageSelection stages) {
    Set<String> skipped = new HashSet<>(stages.skippedStages());
    List<PlannedJob> jobs = new ArrayList<>();
    for (Backend backend : policy.backends()) {
      for (Suite suite : backend.suites()) {
        if (skipped.contains(suite.name()) || (suite.externallyScheduled() && !run.admitNightlyTests())) {
          continue;
        }
        List<Registration> enabled = registry.select(backend.name(), suite.name(), run, matchAllLabels).enabled();
        if (enabled.isEmpty()) {
          continue;
        }
        int count = suite.shards();
        for (int index = 0; index < count; index++) {
          List<Registration> shard = SuiteRegistry.shard(enabled, index, count);
          if (shard.isEmpty()) {
            continue;
          }
          double estimate = 0;
          List<String> files = new ArrayList<>(shard.size());
          for (Registration r : shard) {
            estimate += r.estTimeSeconds();
            files.add(r.file());
          }
          jobs.add(new PlannedJob(backend.name(), suite.name(), index, count, files, suite.gpuBudget(),
              suite.pool(), estimate, policy.timeouts().timeoutFor(estimate)));
        }
      }
    }
    return List.copyOf(jobs);
  }
}

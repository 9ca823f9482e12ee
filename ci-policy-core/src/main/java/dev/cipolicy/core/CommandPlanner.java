package dev.cipolicy.core;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.CommandTemplate;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.RunCommand;
import dev.cipolicy.api.policy.RunPlaceholder;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.suite.JobPlan;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.RunFacts;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the planned jobs of a resolved run ({@link SuitePlanner}) and the run's facts into the jobs a queue
 * runs on GPU hosts: one {@link JobPlan} per suite shard, named {@code <suite>-<shard>of<shards>}, with the
 * suite's pool, GPUs, estimate and timeout, and its {@link RunCommand} (the suite's own, else its
 * backend's) rendered for the shard and the run. Pure and thread-safe: the same policy, jobs and facts give
 * the same plans.
 *
 * <pre>{@code
 * List<PlannedJob> planned = SuitePlanner.of(registry).plan(resolution, stages);
 * List<JobPlan> jobs = CommandPlanner.of(policy).plan(planned, RunFacts.builder().commit(sha)
 *     .runId(runId).cadence(run.cadence()).labels(run.rawLabels()).build());
 * }</pre>
 */
public final class CommandPlanner {
  private final Policy policy;

  private CommandPlanner(Policy policy) {
    this.policy = policy;
  }

  /**
   * A planner over a checked policy.
   *
   * @param policy the policy the jobs were planned from
   * @return the planner
   */
  public static CommandPlanner of(Policy policy) {
    return new CommandPlanner(policy);
  }

  /**
   * The job plans of a run, in the order of the planned jobs.
   *
   * @param planned the planned jobs of the run, each suite shard at most once
   * @param facts the run's facts
   * @return one plan per planned job
   * @throws InvalidInputException when a planned job names a backend or suite the policy does not declare,
   *     names a shard twice, or belongs to a suite without a run command (neither its own nor its backend's)
   */
  public List<JobPlan> plan(List<PlannedJob> planned, RunFacts facts) {
    List<JobPlan> plans = new ArrayList<>(planned.size());
    Set<String> names = new HashSet<>();
    for (PlannedJob job : planned) {
      Backend backend = policy.backends().stream().filter(b -> b.name().equals(job.backend())).findFirst()
          .orElseThrow(() -> new InvalidInputException("planned job of suite " + job.suite() + " names backend '"
              + job.backend() + "', which policy " + policy.name() + " does not declare"));
      Suite suite = backend.suites().stream().filter(s -> s.name().equals(job.suite())).findFirst()
          .orElseThrow(() -> new InvalidInputException("planned job names suite '" + job.suite()
              + "', which backend " + backend.name() + " of policy " + policy.name() + " does not declare"));
      RunCommand run = backend.runOf(suite).orElseThrow(() -> new InvalidInputException("suite " + suite.name()
          + " declares no run command; declare backends." + backend.name() + ".run or backends." + backend.name()
          + ".suites." + suite.name() + ".run"));
      String name = JobPlan.nameOf(suite.name(), job.shardIndex(), job.shardCount());
      if (!names.add(name)) {
        throw new InvalidInputException("the planned jobs list shard " + job.shardIndex() + " of suite "
            + suite.name() + " twice; expected each shard once");
      }
      Map<RunPlaceholder, String> values = values(job, name, facts);
      JobPlan.Builder b = JobPlan.builder().name(name).backend(backend.name()).suite(suite.name())
          .shard(job.shardIndex()).shards(job.shardCount()).pool(job.pool()).gpus(job.gpus())
          .estimatedSeconds(job.estimatedSeconds()).timeoutSeconds(job.timeoutSeconds()).cadence(facts.cadence())
          .addAllDeviceEnv(job.gpus() > 0 ? backend.deviceEnv() : List.of());
      for (String template : run.command()) {
        b.addArgv(CommandTemplate.render(template, values));
      }
      run.env().forEach((k, v) -> b.putEnv(k, CommandTemplate.render(v, values)));
      Optional<String> image = run.image().map(t -> CommandTemplate.render(t, values));
      image.ifPresent(b::image);
      plans.add(b.build());
    }
    return List.copyOf(plans);
  }

  private static Map<RunPlaceholder, String> values(PlannedJob job, String name, RunFacts facts) {
    Map<RunPlaceholder, String> v = new EnumMap<>(RunPlaceholder.class);
    v.put(RunPlaceholder.SUITE, job.suite());
    v.put(RunPlaceholder.BACKEND, job.backend());
    v.put(RunPlaceholder.SHARD, Integer.toString(job.shardIndex()));
    v.put(RunPlaceholder.SHARDS, Integer.toString(job.shardCount()));
    v.put(RunPlaceholder.GPUS, Integer.toString(job.gpus()));
    v.put(RunPlaceholder.JOB, name);
    long t = job.timeoutSeconds();
    v.put(RunPlaceholder.TIMEOUT_MINUTES, Long.toString(t / 60 + (t % 60 == 0 ? 0 : 1)));
    v.put(RunPlaceholder.CADENCE, facts.cadence());
    v.put(RunPlaceholder.LABELS, String.join(",", facts.labels()));
    v.put(RunPlaceholder.COMMIT, facts.commit());
    v.put(RunPlaceholder.PR, facts.pr().map(String::valueOf).orElse(""));
    v.put(RunPlaceholder.RUN_ID, facts.runId());
    v.put(RunPlaceholder.ATTEMPT, Integer.toString(facts.attempt()));
    v.put(RunPlaceholder.IMAGE_TAG, facts.imageTag());
    return v;
  }
}

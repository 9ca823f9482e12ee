package dev.cipolicy.queue;

import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Request;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The fan-out of a queue, a port the host implements: which jobs a request gets when the site tick starts
 * it. The engine calls it once per start, with the request about to start, and hands its answer to the
 * store's start operation, which creates the jobs and, when backfill is on, enqueues the same jobs for the
 * request's parent (those the parent lacks). A planner never calls the store.
 *
 * <p>The default, {@link #groupsByTargets(List, List)}, gives one job per benchmark group and collector
 * target. A host with other rules (a group run on one collector tag only, an optional job beside a required
 * one on the same tag, a group that a kind of request never gets) writes its own and sets it with
 * {@link QueueSettings.Builder#planner(JobPlanner)}; see {@code docs/queue-planner.md}.
 *
 * <p>A planner is a pure function of the request: every site sharing a store must plan the same jobs for the
 * same request, and a planner must not block, so it reads nothing but the request and its own configuration.
 */
@FunctionalInterface
public interface JobPlanner {

  /**
   * The jobs of a request that is about to start.
   *
   * @param request the request, ready to start
   * @return the job specs, in the order they are created, each benchmark group and collector tag at most once;
   *     empty when the request runs nothing (it then completes as a success in the tick that starts it)
   */
  List<JobSpec> jobsFor(Request request);

  /**
   * The default fan-out: one job per benchmark group (the request's own, else {@code defaultGroups}) and
   * collector target, in that order; jobs on a target that is not required are optional.
   *
   * @param defaultGroups the groups of requests that name none
   * @param targets the collector targets
   * @return the planner
   */
  static JobPlanner groupsByTargets(List<String> defaultGroups, List<CollectorTarget> targets) {
    List<String> groups = List.copyOf(defaultGroups);
    List<CollectorTarget> tags = List.copyOf(targets);
    return request -> {
      List<String> own = request.benchmarkGroups().isEmpty() ? groups : request.benchmarkGroups();
      List<JobSpec> specs = new ArrayList<>(own.size() * tags.size());
      for (String group : own) {
        for (CollectorTarget target : tags) {
          specs.add(target.required() ? JobSpec.required(group, target.tag()) : JobSpec.optionalJob(group, target.tag()));
        }
      }
      return specs;
    };
  }

  /**
   * The planner of a resolved run: every request gets the jobs of the run's planned jobs, one required job
   * per suite shard on its pool with its GPU budget and estimate, as {@link SuiteJobs#specs(List)} maps them.
   * The specs are computed once, here, so bad input fails when the planner is made, not in a tick.
   *
   * @param planned the planned jobs of the run, e.g. from {@code SuitePlanner.plan}
   * @return the planner
   * @throws InvalidQueueInputException for a GPU job without a pool, an estimate
   *     longer than {@link JobSpec#MAX_ESTIMATE}, or two planned jobs with the same group and pool
   */
  static JobPlanner fromSuites(List<PlannedJob> planned) {
    return fromSuites(planned, "");
  }

  /**
   * The planner of a resolved run of a cadence: as {@link #fromSuites(List)}, each job carrying the run's
   * cadence ({@link JobSpec#cadence()}), which the stores' fleet shares cap.
   *
   * @param planned the planned jobs of the run
   * @param cadence the run's cadence, e.g. {@code weekly}; the empty string for none
   * @return the planner
   * @throws InvalidQueueInputException as {@link #fromSuites(List)}, or when the cadence is not a name
   */
  static JobPlanner fromSuites(List<PlannedJob> planned, String cadence) {
    List<JobSpec> specs = SuiteJobs.specs(planned, cadence);
    Set<String> seen = new HashSet<>();
    for (JobSpec spec : specs) {
      if (!seen.add(spec.benchmarkGroup() + "@" + spec.collectorTag())) {
        throw new InvalidQueueInputException("planned jobs give " + spec + " twice; expected each suite shard"
            + " once");
      }
    }
    return request -> specs;
  }
}

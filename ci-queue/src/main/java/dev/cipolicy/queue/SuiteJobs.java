package dev.cipolicy.queue;

import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue jobs of a resolved run's planned jobs (see {@code SuitePlanner} in ci-policy-core): one required
 * {@link JobSpec} per planned job, named after its suite and shard, queued on its pool with its GPU budget and
 * estimated duration. {@link JobPlanner#fromSuites(List)} is the planner that gives these jobs to a request.
 *
 * <ul>
 *   <li>benchmark group: the suite, e.g. {@code stage-c-8-gpu-b200}; for a suite of several shards the suite,
 *       the 0-based shard index and the shard count, e.g. {@code stage-c-4-gpu-h200-1of3};
 *   <li>collector tag: the planned job's pool, e.g. {@code h200}; a job of a suite without a pool (a CPU
 *       suite) goes to {@link #CPU_TAG};
 *   <li>GPUs and estimate: the planned job's GPUs and estimated seconds (whole microseconds kept);
 *   <li>timeout: the planned job's timeout (the policy's timeout rule applied to its estimate), which the
 *       collector that runs it enforces.
 * </ul>
 */
public final class SuiteJobs {
  /** The collector tag of a planned job whose suite declares no pool: {@code cpu}. */
  public static final String CPU_TAG = "cpu";

  private SuiteJobs() {}

  /**
   * The job specs of planned jobs, in their order.
   *
   * @param planned the planned jobs of a run
   * @return one required spec per planned job
   * @throws InvalidQueueInputException for a GPU job without a pool, or an estimate longer than
   *     {@link JobSpec#MAX_ESTIMATE}
   */
  public static List<JobSpec> specs(List<PlannedJob> planned) {
    return specs(planned, "");
  }

  /**
   * The job specs of planned jobs of a run of a cadence, in their order: each as {@link #specs(List)} maps
   * it, with the cadence, so that the fleet shares of their pools cap them.
   *
   * @param planned the planned jobs of a run
   * @param cadence the run's cadence, e.g. {@code weekly}; the empty string for none
   * @return one required spec per planned job
   * @throws InvalidQueueInputException as {@link #specs(List)}, or when the cadence is not a name
   */
  public static List<JobSpec> specs(List<PlannedJob> planned, String cadence) {
    List<JobSpec> specs = new ArrayList<>(planned.size());
    for (PlannedJob job : planned) {
      specs.add(spec(job).withCadence(cadence));
    }
    return List.copyOf(specs);
  }

  /**
   * The job spec of one planned job.
   *
   * @param job the planned job
   * @return a required spec on the job's pool (or {@link #CPU_TAG}) with its GPUs, estimate and timeout
   * @throws InvalidQueueInputException for a GPU job without a pool, an estimate longer than
   *     {@link JobSpec#MAX_ESTIMATE} or a timeout longer than {@link JobSpec#MAX_TIMEOUT}
   */
  public static JobSpec spec(PlannedJob job) {
    String group = benchmarkGroup(job);
    if (job.gpus() > 0 && job.pool().isEmpty()) {
      throw new InvalidQueueInputException("planned job " + group + " (" + job.backend() + ") needs " + job.gpus()
          + " GPUs but its suite declares no pool; expected a pool for every GPU suite");
    }
    if (job.estimatedSeconds() > JobSpec.MAX_ESTIMATE.toSeconds()) {
      throw new InvalidQueueInputException("planned job " + group + " is estimated at " + job.estimatedSeconds()
          + " s; expected at most " + JobSpec.MAX_ESTIMATE.toSeconds() + " s");
    }
    if (job.timeoutSeconds() > JobSpec.MAX_TIMEOUT.toSeconds()) {
      throw new InvalidQueueInputException("planned job " + group + " has a timeout of " + job.timeoutSeconds()
          + " s; expected at most " + JobSpec.MAX_TIMEOUT.toSeconds() + " s");
    }
    Duration estimate = Duration.ofNanos(Math.round(job.estimatedSeconds() * 1e9));
    return JobSpec.required(group, job.pool().orElse(CPU_TAG)).withGpus(job.gpus(), estimate)
        .withTimeout(Duration.ofSeconds(job.timeoutSeconds()));
  }

  /**
   * The benchmark group of a planned job.
   *
   * @param job the planned job
   * @return the suite, or {@code <suite>-<index>of<count>} when the suite has several shards
   */
  public static String benchmarkGroup(PlannedJob job) {
    return job.sharded() ? job.suite() + "-" + job.shardIndex() + "of" + job.shardCount() : job.suite();
  }
}

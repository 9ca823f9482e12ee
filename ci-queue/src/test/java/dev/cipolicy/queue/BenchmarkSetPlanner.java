package dev.cipolicy.queue;

import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestKind;
import java.util.ArrayList;
import java.util.List;

/**
 * An example {@link JobPlanner}, the fan-out of a compiler benchmark site whose collectors each run one
 * benchmark set of one target (the tag names both, e.g. {@code x86-64-1}):
 *
 * <ul>
 *   <li>the request's own benchmark groups (by default {@code compile-time}; those below excepted) run on
 *       every set of every target, required on the main target {@code x86-64} and optional on {@code aarch64};
 *   <li>{@code compile-time-cranelift}, an experimental backend, runs beside {@code compile-time} on set 0
 *       of the main target as an optional job, so it never holds a result back;
 *   <li>{@code runtime} runs on set 0 of each target only;
 *   <li>{@code rustc} (building the compiler itself) runs on set 0 of the main target only, and never for a
 *       release.
 * </ul>
 *
 * <p>It is the example of {@code docs/queue-planner.md}; {@link JobPlannerTest} runs it through {@link JobQueue}.
 */
final class BenchmarkSetPlanner implements JobPlanner {

  static final String MAIN = "x86-64";
  static final String OTHER = "aarch64";

  /** The groups planned on set 0 only, whatever groups a request names. */
  static final List<String> SINGLE_SET = List.of("compile-time-cranelift", "runtime", "rustc");

  private final int mainSets;
  private final int otherSets;

  /**
   * A planner over the given number of benchmark sets per target.
   *
   * @param mainSets the sets of the main target, at least 1
   * @param otherSets the sets of the optional target, at least 1
   */
  BenchmarkSetPlanner(int mainSets, int otherSets) {
    this.mainSets = mainSets;
    this.otherSets = otherSets;
  }

  @Override
  public List<JobSpec> jobsFor(Request request) {
    List<String> groups = (request.benchmarkGroups().isEmpty() ? List.of("compile-time") : request.benchmarkGroups())
        .stream().filter(g -> !SINGLE_SET.contains(g)).toList();
    List<JobSpec> jobs = new ArrayList<>();
    for (int set = 0; set < mainSets; set++) {
      String tag = MAIN + "-" + set;
      groups.forEach(g -> jobs.add(JobSpec.required(g, tag)));
      if (set == 0) {
        jobs.add(JobSpec.optionalJob("compile-time-cranelift", tag));
        jobs.add(JobSpec.required("runtime", tag));
        if (request.kind() != RequestKind.RELEASE) {
          jobs.add(JobSpec.required("rustc", tag));
        }
      }
    }
    for (int set = 0; set < otherSets; set++) {
      String tag = OTHER + "-" + set;
      groups.forEach(g -> jobs.add(JobSpec.optionalJob(g, tag)));
      if (set == 0) {
        jobs.add(JobSpec.optionalJob("runtime", tag));
      }
    }
    return jobs;
  }
}

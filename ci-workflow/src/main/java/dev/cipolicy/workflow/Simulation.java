package dev.cipolicy.workflow;

import java.util.List;
import java.util.Optional;

/**
 * The answer for one scenario: every job in file order with its result and why.
 *
 * @param scenario the scenario simulated (in exhaustive mode, with the injected failures)
 * @param jobs one outcome per job, in file order
 */
public record Simulation(Scenario scenario, List<JobOutcome> jobs) {
  /** Copies the list. */
  public Simulation {
    jobs = List.copyOf(jobs);
  }

  /**
   * The outcome of one job.
   *
   * @param id the job id
   * @return its outcome, if the workflow has the job
   */
  public Optional<JobOutcome> job(String id) {
    return jobs.stream().filter(j -> j.job().equals(id)).findFirst();
  }

  /**
   * The result of one job.
   *
   * @param id the job id
   * @return its result
   * @throws IllegalArgumentException when the workflow has no such job
   */
  public JobResult result(String id) {
    return job(id).map(JobOutcome::result).orElseThrow(() -> new IllegalArgumentException("no job " + id));
  }
}

package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.util.ArrayList;
import java.util.List;

/**
 * One completed request in the history, with its errors: the jobs of it (its own and those backfilled to
 * it) that failed, by id, each carrying its {@link JobFailure}.
 *
 * @param request the completed request
 * @param failedJobs its failed jobs, by id; empty when none failed
 */
public record HistoryEntry(Request request, List<Job> failedJobs) {

  /** Checks the components and copies the list. */
  public HistoryEntry {
    Checks.present(request, "history request");
    if (request.state() != RequestState.COMPLETED) {
      throw new InvalidQueueInputException("a history entry holds a completed request; " + request.label()
          + " is " + request.state().name().toLowerCase(java.util.Locale.ROOT));
    }
    failedJobs = List.copyOf(Checks.present(failedJobs, "failed jobs"));
    for (Job job : failedJobs) {
      if (job.state() != JobState.FAILED) {
        throw new InvalidQueueInputException("the failed jobs of a history entry are failed; " + job.id()
            + " is " + job.state().name().toLowerCase(java.util.Locale.ROOT));
      }
    }
  }

  /**
   * The errors of the request: the failure of each failed job, in job order.
   *
   * @return the failures
   */
  public List<JobFailure> errors() {
    List<JobFailure> out = new ArrayList<>(failedJobs.size());
    for (Job job : failedJobs) {
      out.add(job.failure().orElseThrow());
    }
    return out;
  }
}

package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Job;
import java.util.Optional;

/**
 * What a fenced job update did, with the job as it is afterwards.
 *
 * @param status what happened
 * @param job the job after the operation (unchanged unless {@code OK} or {@code CANCELLED}), absent when not
 *     found
 */
public record LeaseResult(LeaseStatus status, Optional<Job> job) {

  /** Checks the components. */
  public LeaseResult {
    Checks.present(status, "lease status");
    Checks.present(job, "lease job");
  }

  /**
   * Whether the update was applied.
   *
   * @return true for {@link LeaseStatus#OK}
   */
  public boolean ok() {
    return status == LeaseStatus.OK;
  }
}

package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.time.Instant;

/**
 * A job's result as a store keeps it: written in the step that marked the job succeeded, by the lease that
 * did it, and never changed afterwards.
 *
 * @param jobId the job
 * @param requestId the request the job belongs to
 * @param attempt the attempt of the lease that completed the job
 * @param collector the collector that held that lease
 * @param storedAt when it was kept, on the store's clock (the job's finish instant)
 * @param payload the result
 */
public record JobResult(JobId jobId, RequestId requestId, int attempt, String collector, Instant storedAt,
    ResultPayload payload) {

  /** Checks the components. */
  public JobResult {
    Checks.present(jobId, "result job id");
    Checks.present(requestId, "result request id");
    Checks.atLeast(attempt, 1, "result attempt");
    Checks.token(collector, "result collector");
    Checks.present(storedAt, "result instant");
    Checks.present(payload, "result payload");
  }
}

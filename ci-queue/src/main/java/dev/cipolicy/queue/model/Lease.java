package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.time.Instant;
import java.util.List;

/**
 * A collector's time-limited right to run one attempt of a job: the job, the attempt number, the fencing
 * token and the expiry. Heartbeat, complete, fail and release succeed only with the job's current attempt
 * and token while the lease is live; anything else is a stale lease and changes nothing.
 *
 * @param jobId the leased job
 * @param attempt the job's attempt this lease is for; every claim increments it
 * @param token the fencing token, unique among all leases a store ever issued
 * @param expiresAt the first instant at which the lease is no longer live
 * @param collector the collector holding the lease
 * @param devices the indices of the holder's GPU devices the job may use, ascending (the host sets
 *     {@code CUDA_VISIBLE_DEVICES} from them); empty for a job that needs none. No two live leases share a
 *     device of the same collector.
 */
public record Lease(JobId jobId, int attempt, long token, Instant expiresAt, String collector,
    List<Integer> devices) {

  /** Checks the components. */
  public Lease {
    Checks.present(jobId, "lease job id");
    Checks.atLeast(attempt, 1, "lease attempt");
    Checks.present(expiresAt, "lease expiry");
    Checks.token(collector, "lease collector");
    devices = List.copyOf(Checks.present(devices, "lease devices"));
    for (int i = 1; i < devices.size(); i++) {
      if (devices.get(i - 1) >= devices.get(i)) {
        throw new InvalidQueueInputException("lease devices " + devices + " of job " + jobId.value()
            + " are not ascending and distinct");
      }
    }
  }

  /**
   * A lease on no device.
   *
   * @param jobId the leased job
   * @param attempt the attempt
   * @param token the fencing token
   * @param expiresAt the expiry
   * @param collector the holder
   */
  public Lease(JobId jobId, int attempt, long token, Instant expiresAt, String collector) {
    this(jobId, attempt, token, expiresAt, collector, List.of());
  }

  /**
   * Whether the lease is live at the given instant.
   *
   * @param now the instant
   * @return true when {@code now} is before the expiry
   */
  public boolean isLiveAt(Instant now) {
    return now.isBefore(expiresAt);
  }

  /**
   * Whether the fence (job, attempt, token) of this lease matches the given one.
   *
   * @param jobId a job id
   * @param attempt an attempt
   * @param token a token
   * @return true when all three match
   */
  public boolean fences(JobId jobId, int attempt, long token) {
    return this.jobId.equals(jobId) && this.attempt == attempt && this.token == token;
  }

  /**
   * The same lease with a new expiry (a renewal keeps attempt and token).
   *
   * @param newExpiry the new expiry
   * @return the renewed lease
   */
  public Lease renewedUntil(Instant newExpiry) {
    return new Lease(jobId, attempt, token, newExpiry, collector, devices);
  }
}

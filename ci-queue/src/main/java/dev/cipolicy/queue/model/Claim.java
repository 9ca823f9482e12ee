package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;

/**
 * One job a claim handed out: the job as leased and its lease.
 *
 * @param job the job, in state leased
 * @param lease its new lease, the one to heartbeat, complete, fail or release with
 */
public record Claim(Job job, Lease lease) {

  /** Checks that the lease is the job's. */
  public Claim {
    Checks.present(job, "claimed job");
    Checks.present(lease, "claim lease");
    if (!job.lease().map(lease::equals).orElse(false)) {
      throw new IllegalStateException("claim of " + job.id() + ": lease " + lease + " is not the job's lease");
    }
  }

  /**
   * The claimed job's args: the host-defined work to run ({@link JobSpec#args()}).
   *
   * @return the args, or empty
   */
  public java.util.Optional<String> args() {
    return job.spec().args();
  }
}

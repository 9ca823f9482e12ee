package dev.cipolicy.queue.worker;

/**
 * Why a {@link CollectorRuntime} stopped a running job before its runner returned. The collector marks the
 * {@link JobContext} stopped and interrupts the runner's thread; what it then tells the queue depends on the
 * reason.
 */
public enum StopReason {
  /**
   * A heartbeat answered that the job's request was cancelled: the queue has already cancelled the job, so
   * nothing more is reported for it.
   */
  REQUEST_CANCELLED,
  /**
   * A heartbeat answered that the lease is no longer this collector's (it expired and was reclaimed, or the
   * job is gone): nothing is reported, since another attempt owns the job now.
   */
  LEASE_LOST,
  /**
   * The job ran longer than the collector's job timeout: it is failed with the timeout's failure kind
   * (transient unless configured otherwise), whatever the runner returns once stopped.
   */
  TIMEOUT,
  /**
   * The collector shut down and the shutdown grace period ran out: the lease is released unfinished, so
   * that another collector (or this one, restarted) runs the job again without spending a retry budget.
   */
  SHUTDOWN
}

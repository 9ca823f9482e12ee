package dev.cipolicy.queue.spi;

/**
 * What a fenced job update (heartbeat, complete, fail, release) did.
 */
public enum LeaseStatus {
  /** The lease was the job's live lease and the update was applied. */
  OK,
  /**
   * The attempt or token is not the job's current live lease (it expired, was reclaimed, or the job already
   * finished); nothing changed.
   */
  STALE_LEASE,
  /**
   * The lease was live but the job's request was cancelled: the job is now cancelled, the update discarded,
   * and the collector should stop working on it.
   */
  CANCELLED,
  /** No job has this id; nothing changed. */
  NOT_FOUND
}

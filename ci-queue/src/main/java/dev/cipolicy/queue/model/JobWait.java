package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;

/**
 * A queued job and why it is not running.
 *
 * @param job the queued job
 * @param reason why it waits
 */
public record JobWait(Job job, WaitReason reason) {

  /** Checks the components. */
  public JobWait {
    Checks.present(job, "waiting job");
    Checks.present(reason, "wait reason");
  }
}

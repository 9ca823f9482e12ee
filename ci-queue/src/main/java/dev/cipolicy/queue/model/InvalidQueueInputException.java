package dev.cipolicy.queue.model;

import dev.cipolicy.api.CiPolicyException;

/**
 * Input the job queue cannot use: a blank collector name, a SHA with white space, a try request without
 * a PR number, a non-positive lease duration. The message names the value, the field and what was
 * expected. Domain outcomes (a duplicate submission, a stale lease) are result values, never this.
 */
public final class InvalidQueueInputException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong, where, and what was expected
   */
  public InvalidQueueInputException(String message) {
    super(message);
  }
}

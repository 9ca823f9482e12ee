package dev.cipolicy.fleet.job;

import dev.cipolicy.api.CiPolicyException;

/**
 * A CI job that cannot be built or read: a field that breaks its rule or limit, arguments that are not the JSON
 * of a CI job. The message names the field and what was expected, on one line.
 */
public final class InvalidCiJobException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong, where, and what was expected
   */
  public InvalidCiJobException(String message) {
    super(message);
  }
}

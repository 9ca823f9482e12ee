package dev.cipolicy.launch;

import dev.cipolicy.api.CiPolicyException;

/**
 * Input to a launcher port that cannot be used: an empty argument list, a bad environment variable name,
 * an unknown node, a bad temporary-file extension. The message names the value and what was expected.
 */
public final class InvalidCommandException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what was expected
   */
  public InvalidCommandException(String message) {
    super(message);
  }
}

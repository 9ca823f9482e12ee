package dev.cipolicy.api;

/**
 * Run input that cannot be used: PR labels missing where the trigger needs them, a workflow label combined
 * with a cadence it does not allow, an empty required value.
 */
public final class InvalidInputException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong with the input and what was expected
   */
  public InvalidInputException(String message) {
    super(message);
  }
}

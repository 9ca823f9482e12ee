package dev.cipolicy.api;

/**
 * The root of every exception ci-policy throws. Messages name the input, where it was found and what
 * was expected. Domain outcomes (a skipped stage, a failed gate) are values, never exceptions.
 */
public abstract class CiPolicyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a complete, human-readable message.
   *
   * @param message what went wrong, where, and what was expected
   */
  protected CiPolicyException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and the low-level cause.
   *
   * @param message what went wrong, where, and what was expected
   * @param cause the underlying failure
   */
  protected CiPolicyException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The message given to the constructor, never null.
   *
   * @return what went wrong, where, and what was expected
   */
  @Override
  public String getMessage() {
    String message = super.getMessage();
    return message != null ? message : getClass().getName();
  }
}

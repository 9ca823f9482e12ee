package dev.cipolicy.launch;

import dev.cipolicy.api.CiPolicyException;

/** A command that could not be run at all: its program could not be started, or the wait was interrupted. */
public final class CommandExecutionException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message which command and what went wrong
   * @param cause the underlying failure
   */
  public CommandExecutionException(String message, Throwable cause) {
    super(message, cause);
  }
}

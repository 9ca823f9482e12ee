package dev.cipolicy.fleet.server;

import dev.cipolicy.api.CiPolicyException;

/**
 * The fleet server could not start: its address and port cannot be listened on (in use, not an address of this
 * machine, not permitted). The message names the address, the port and the reason, on one line.
 */
public final class FleetServerException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what could not be done, and why
   * @param cause the failure underneath
   */
  public FleetServerException(String message, Throwable cause) {
    super(message, cause);
  }
}

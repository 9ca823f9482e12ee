package dev.cipolicy.fleet.host;

import dev.cipolicy.api.CiPolicyException;

/**
 * What a host daemon was given or detected that it cannot use: a device list that does not parse, groups that do
 * not cover the devices, a vendor tool's output without devices. The message names the input, the position and
 * what was expected, on one line.
 */
public final class InvalidHostException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong, where, and what was expected
   */
  public InvalidHostException(String message) {
    super(message);
  }
}

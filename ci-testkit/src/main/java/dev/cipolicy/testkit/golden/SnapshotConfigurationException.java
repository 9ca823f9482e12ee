package dev.cipolicy.testkit.golden;

import dev.cipolicy.api.CiPolicyException;

/**
 * A snapshot setup that cannot work: a scrubber without a name or with a bad expression, a launcher
 * class without entrypoints, an allowance or variant naming an entrypoint that does not exist. The
 * message names the setting and what was expected.
 */
public final class SnapshotConfigurationException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is wrong and what was expected
   */
  public SnapshotConfigurationException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what is wrong and what was expected
   * @param cause the underlying failure
   */
  public SnapshotConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}

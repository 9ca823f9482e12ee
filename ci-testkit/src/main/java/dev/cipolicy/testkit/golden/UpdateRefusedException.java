package dev.cipolicy.testkit.golden;

import dev.cipolicy.api.CiPolicyException;

/**
 * A request to rewrite golden files on CI ({@code CI=true}), where golden files are compared and never
 * rewritten: an update there would turn every regression into a passing run.
 */
public final class UpdateRefusedException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message which switch asked for the update and why it is refused
   */
  public UpdateRefusedException(String message) {
    super(message);
  }
}

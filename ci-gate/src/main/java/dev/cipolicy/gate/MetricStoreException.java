package dev.cipolicy.gate;

import dev.cipolicy.api.CiPolicyException;

/**
 * A {@link MetricHistoryStore} could not do what was asked: a lost connection, a failed statement. When the
 * store's database cannot be reached it is the subclass {@link MetricStoreUnavailableException}.
 */
public class MetricStoreException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what the store was doing and what went wrong
   * @param cause the underlying failure
   */
  public MetricStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}

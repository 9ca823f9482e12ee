package dev.cipolicy.queue.spi;

import dev.cipolicy.api.CiPolicyException;

/**
 * A failure of a {@link QueueStore} itself rather than of its input: a lost database connection, a
 * violated constraint the store could not map to a result value. Adapters wrap their low-level errors
 * in it and name the operation and its arguments.
 */
public class QueueStoreException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message the operation that failed and its arguments
   */
  public QueueStoreException(String message) {
    super(message);
  }

  /**
   * Creates the exception with its low-level cause.
   *
   * @param message the operation that failed and its arguments
   * @param cause the underlying failure
   */
  public QueueStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}

package dev.cipolicy.gate;

/**
 * A {@link MetricHistoryStore} operation could not reach its database: no connection could be had, or the
 * connection was lost (terminated by an administrator, the server restarted, the network failed). The
 * message names the operation and the database error. {@link #mayHaveCommitted()} tells whether the change
 * may have been applied: false when the connection was lost before the commit was sent (the database rolled
 * the transaction back, so a retry is safe), true when it was lost while committing (re-read before writing
 * again: a run written twice is stored twice).
 */
public final class MetricStoreUnavailableException extends MetricStoreException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final boolean mayHaveCommitted;

  /**
   * Creates the exception.
   *
   * @param operation the store operation, e.g. {@code write a run of tests/e2e/test_a.py (cuda/stage-a)}
   * @param mayHaveCommitted whether the change may have been applied
   * @param message the full message, naming the operation and the database error
   * @param cause the database error
   */
  public MetricStoreUnavailableException(String operation, boolean mayHaveCommitted, String message,
      Throwable cause) {
    super(message, cause);
    this.operation = operation;
    this.mayHaveCommitted = mayHaveCommitted;
  }

  /**
   * The store operation that failed.
   *
   * @return what the store was doing
   */
  public String operation() {
    return operation;
  }

  /**
   * Whether the operation's change may have been applied (the connection was lost while committing).
   *
   * @return false when the database certainly rolled the operation back
   */
  public boolean mayHaveCommitted() {
    return mayHaveCommitted;
  }
}

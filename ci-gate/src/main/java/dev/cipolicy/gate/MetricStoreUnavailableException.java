package dev.cipolicy.gate;

/**
 * The retryable history-store failure: a {@link MetricHistoryStore} operation could not reach its database in
 * time. No connection could be had; the connection was lost (terminated by an administrator, the server
 * restarted, the network failed, or the server ended a session that sat idle in its transaction because its
 * process stalled); or the operation reached a time limit of its store (a lock held by a stalled session, a
 * statement that ran too long). The message names the operation and the database error.
 *
 * <p><b>Contract: every instance is transient and the operation may be tried again later</b>, unlike the base
 * {@link MetricStoreException}. {@link #mayHaveCommitted()} tells how: false when the database certainly rolled
 * the operation back (no connection, lost before the commit was sent, a reached time limit), so a retry is
 * safe; true when the connection was lost while committing (re-read before writing again). Stores retry
 * nothing of this kind themselves.
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

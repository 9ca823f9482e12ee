package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;

/**
 * The retryable store failure: an operation could not reach its database in time. No connection could be
 * had; the connection was lost (terminated by an administrator, the server restarted, the network failed, or
 * the server ended a session that sat idle in its transaction because its process stalled); or the operation
 * reached a time limit of its store (it waited too long for a lock held by a stalled session, or a statement
 * ran too long). The message names the operation and the database error.
 *
 * <p><b>Contract: every instance is transient and the operation may be tried again later</b>, unlike the base
 * {@link QueueStoreException}, which retrying does not cure. {@link #mayHaveCommitted()} tells how: false when
 * the database certainly rolled the operation back (no connection, lost before the commit was sent, a
 * reached time limit), so the same call is safe to repeat; true when the connection was lost while
 * committing, so re-read the state, or retry an operation whose repetition is harmless, such as a fenced
 * completion, which then reports {@link LeaseStatus#STALE_LEASE} if the first one took effect. Stores retry
 * nothing of this kind themselves: the caller's loop (a site's next tick, a collector's next claim) does.
 */
public final class QueueStoreUnavailableException extends QueueStoreException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final boolean mayHaveCommitted;

  /**
   * Creates the exception.
   *
   * @param operation the store operation, e.g. {@code claim}
   * @param mayHaveCommitted whether the change may have been applied
   * @param message the full message, naming the operation and the database error
   * @param cause the database error
   */
  public QueueStoreUnavailableException(String operation, boolean mayHaveCommitted, String message,
      Throwable cause) {
    super(message, cause);
    this.operation = Checks.present(operation, "operation");
    this.mayHaveCommitted = mayHaveCommitted;
  }

  /**
   * The store operation that failed.
   *
   * @return e.g. {@code claim}, {@code complete}
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

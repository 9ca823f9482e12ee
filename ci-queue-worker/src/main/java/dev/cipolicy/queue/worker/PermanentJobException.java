package dev.cipolicy.queue.worker;

/**
 * Thrown by a {@link JobRunner} for a failure that retrying cannot fix (the artifact does not exist, the job's
 * input is malformed): the collector fails the job permanently, with this exception's message as the detail.
 * Any other exception is a transient failure unless the collector's
 * {@linkplain CollectorRuntime.Builder#permanentWhen classifier} says otherwise.
 */
public class PermanentJobException extends Exception {

  private static final long serialVersionUID = 1L;

  /**
   * A permanent failure.
   *
   * @param message what went wrong, for the job's record
   */
  public PermanentJobException(String message) {
    super(message);
  }

  /**
   * A permanent failure with its cause.
   *
   * @param message what went wrong, for the job's record
   * @param cause the underlying failure
   */
  public PermanentJobException(String message, Throwable cause) {
    super(message, cause);
  }
}

package dev.cipolicy.testkit.golden;

import dev.cipolicy.api.CiPolicyException;

/**
 * The snapshot kit could not read or write the file system it needs: a golden file, the golden directory, or
 * a sandbox directory. The message names the path and the operation; the cause is the underlying
 * {@link java.io.IOException}.
 */
public final class SnapshotIoException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message the operation and path that failed, and why
   * @param cause the underlying failure
   */
  public SnapshotIoException(String message, Throwable cause) {
    super(message, cause);
  }
}

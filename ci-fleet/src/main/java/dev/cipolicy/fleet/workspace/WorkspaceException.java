package dev.cipolicy.fleet.workspace;

import dev.cipolicy.api.CiPolicyException;

/**
 * A job's workspace could not be prepared or removed: a commit or remote that is not acceptable, a git command
 * that failed or timed out. The message is one line naming the remote, the commit and git's last words.
 */
public final class WorkspaceException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed, for which remote and commit, and why
   */
  public WorkspaceException(String message) {
    super(message);
  }
}

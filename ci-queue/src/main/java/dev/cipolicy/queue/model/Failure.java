package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;

/**
 * A failure a collector reports for the job it holds: transient (the job is retried while the
 * transient-failure budget lasts) or permanent (the job fails at once), with a detail for the record.
 *
 * @param kind transient or permanent
 * @param detail what went wrong, e.g. {@code artifact for abc123 not found}
 */
public record Failure(Kind kind, String detail) {

  /** Whether a failure is worth retrying. */
  public enum Kind {
    /** A handled, passing failure (network, database); the job is retried. */
    TRANSIENT,
    /** A failure that retrying cannot fix (the artifact does not exist); the job fails at once. */
    PERMANENT
  }

  /** Checks the components. */
  public Failure {
    Checks.present(kind, "failure kind");
    Checks.text(detail, "failure detail");
  }

  /**
   * A transient failure.
   *
   * @param detail what went wrong
   * @return the failure
   */
  public static Failure transientFailure(String detail) {
    return new Failure(Kind.TRANSIENT, detail);
  }

  /**
   * A permanent failure.
   *
   * @param detail what went wrong
   * @return the failure
   */
  public static Failure permanent(String detail) {
    return new Failure(Kind.PERMANENT, detail);
  }
}

package dev.cipolicy.api.suite;

import java.util.Optional;

/**
 * The outcome of a {@code /rerun-test} request: a plan, or a rejection with the check that failed and
 * its message. A rejection is a value, not an exception.
 *
 * @param plan the plan when every check passed
 * @param check the check that rejected the request, e.g. {@code permission}, {@code comment},
 *     {@code image-tag}, {@code registered}, {@code backend}, {@code unique}, {@code disabled},
 *     {@code runner}
 * @param message the rejection message, empty when planned
 */
public record FileRunDecision(Optional<FileRunPlan> plan, String check, String message) {
  /** Validates that a decision is either a plan or a rejection. */
  public FileRunDecision {
    if (plan.isPresent() != message.isEmpty()) {
      throw new IllegalArgumentException("a file-run decision is either a plan or a rejection message");
    }
  }

  /**
   * A successful decision.
   *
   * @param plan the plan
   * @return the decision
   */
  public static FileRunDecision planned(FileRunPlan plan) {
    return new FileRunDecision(Optional.of(plan), "", "");
  }

  /**
   * A rejection.
   *
   * @param check the check that failed
   * @param message why
   * @return the decision
   */
  public static FileRunDecision rejected(String check, String message) {
    return new FileRunDecision(Optional.empty(), check, message);
  }

  /**
   * Whether the request was accepted.
   *
   * @return true when a plan exists
   */
  public boolean accepted() {
    return plan.isPresent();
  }
}

package dev.cipolicy.queue.spi;

import java.util.List;

/**
 * What processing expired leases did: jobs made claimable again (crash rescues), failed because their
 * crash-rescue budget was spent, or cancelled because their request was.
 *
 * @param rescued jobs queued again, by id
 * @param failed jobs failed with {@link JobFailure.Reason#CRASH_BUDGET_EXHAUSTED}, by id
 * @param cancelled jobs flagged for cancellation whose lease expired, now cancelled, by id
 */
public record ExpiryResult(List<Job> rescued, List<Job> failed, List<Job> cancelled) {

  /** Copies the lists. */
  public ExpiryResult {
    rescued = List.copyOf(Checks.present(rescued, "rescued jobs"));
    failed = List.copyOf(Checks.present(failed, "failed jobs"));
    cancelled = List.copyOf(Checks.present(cancelled, "cancelled jobs"));
  }

  /**
   * Whether no lease had expired.
   *
   * @return true when all lists are empty
   */
  public boolean isEmpty() {
    return rescued.isEmpty() && failed.isEmpty() && cancelled.isEmpty();
  }
}

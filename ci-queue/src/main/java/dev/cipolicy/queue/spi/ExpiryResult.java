package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import java.util.List;

/**
 * What processing expired leases did: jobs made claimable again (crash rescues), failed because their
 * crash-rescue budget was spent, or cancelled because their request was.
 *
 * @param rescued jobs queued again, by id
 * @param failed jobs failed with {@link JobFailure.Reason#CRASH_BUDGET_EXHAUSTED}, by id
 * @param cancelled jobs flagged for cancellation whose lease expired, now cancelled, by id
 * @param impossibleRows expired leases left unchanged because their job's rows are impossible (edited by
 *     hand); always empty for stores whose rows cannot be
 */
public record ExpiryResult(List<Job> rescued, List<Job> failed, List<Job> cancelled,
    List<ImpossibleRow> impossibleRows) {

  /** Copies the lists. */
  public ExpiryResult {
    rescued = List.copyOf(Checks.present(rescued, "rescued jobs"));
    failed = List.copyOf(Checks.present(failed, "failed jobs"));
    cancelled = List.copyOf(Checks.present(cancelled, "cancelled jobs"));
    impossibleRows = List.copyOf(Checks.present(impossibleRows, "impossible rows"));
  }

  /**
   * A result without impossible rows.
   *
   * @param rescued jobs queued again, by id
   * @param failed jobs failed because their crash-rescue budget was spent, by id
   * @param cancelled flagged jobs now cancelled, by id
   */
  public ExpiryResult(List<Job> rescued, List<Job> failed, List<Job> cancelled) {
    this(rescued, failed, cancelled, List.of());
  }

  /**
   * Whether no job was rescued, failed or cancelled (impossible rows are not counted).
   *
   * @return true when those three lists are empty
   */
  public boolean isEmpty() {
    return rescued.isEmpty() && failed.isEmpty() && cancelled.isEmpty();
  }
}

package dev.cipolicy.queue.spi;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import java.util.List;
import org.immutables.value.Value;

/**
 * What processing expired leases did: jobs made claimable again (crash rescues), failed because their
 * crash-rescue budget was spent, or cancelled because their request was.
 *
 * <p>Build one with {@link #builder()}: every list is empty unless set.
 */
@Value.Immutable
@ValueStyle
public abstract class ExpiryResult {

  /**
   * The jobs queued again.
   *
   * @return the jobs, by id
   */
  public abstract List<Job> rescued();

  /**
   * The jobs failed with {@link JobFailure.Reason#CRASH_BUDGET_EXHAUSTED}.
   *
   * @return the jobs, by id
   */
  public abstract List<Job> failed();

  /**
   * The jobs flagged for cancellation whose lease expired, now cancelled.
   *
   * @return the jobs, by id
   */
  public abstract List<Job> cancelled();

  /**
   * The expired leases left unchanged because their job's rows are impossible (edited by hand).
   *
   * @return the rows; always empty for stores whose rows cannot be
   */
  public abstract List<ImpossibleRow> impossibleRows();

  /**
   * Whether no job was rescued, failed or cancelled (impossible rows are not counted).
   *
   * @return true when those three lists are empty
   */
  public boolean isEmpty() {
    return rescued().isEmpty() && failed().isEmpty() && cancelled().isEmpty();
  }

  /**
   * A new builder; {@code build()} checks every field.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ExpiryResult}. */
  public static final class Builder extends ImmutableExpiryResult.Builder {
    Builder() {}
  }
}

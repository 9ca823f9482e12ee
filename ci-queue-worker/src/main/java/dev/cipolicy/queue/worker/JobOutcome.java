package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.ResultPayload;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link JobRunner} says its job came to: a success, with or without a result payload, or a failure,
 * transient or permanent. Immutable.
 */
public final class JobOutcome {

  private static final JobOutcome SUCCESS = new JobOutcome(null, null);

  private final @Nullable ResultPayload result;
  private final @Nullable Failure failure;

  private JobOutcome(@Nullable ResultPayload result, @Nullable Failure failure) {
    this.result = result;
    this.failure = failure;
  }

  /**
   * A success without a result: the job is completed.
   *
   * @return the outcome
   */
  public static JobOutcome success() {
    return SUCCESS;
  }

  /**
   * A success with a result the queue keeps with the completion.
   *
   * @param result the result payload
   * @return the outcome
   */
  public static JobOutcome success(ResultPayload result) {
    return new JobOutcome(Settings.present(result, "job result"), null);
  }

  /**
   * A failure: the job is failed with it (retried while the queue's budget lasts when transient).
   *
   * @param failure the failure
   * @return the outcome
   */
  public static JobOutcome failed(Failure failure) {
    return new JobOutcome(null, Settings.present(failure, "job failure"));
  }

  /**
   * A transient failure.
   *
   * @param detail what went wrong
   * @return the outcome
   */
  public static JobOutcome transientFailure(String detail) {
    return failed(Failure.transientFailure(detail));
  }

  /**
   * A permanent failure.
   *
   * @param detail what went wrong
   * @return the outcome
   */
  public static JobOutcome permanentFailure(String detail) {
    return failed(Failure.permanent(detail));
  }

  /**
   * Whether the job succeeded.
   *
   * @return true for a success
   */
  public boolean succeeded() {
    return failure == null;
  }

  /**
   * The result of a success.
   *
   * @return the payload, if the success has one
   */
  public Optional<ResultPayload> result() {
    return Optional.ofNullable(result);
  }

  /**
   * The failure.
   *
   * @return the failure, present exactly when the job did not succeed
   */
  public Optional<Failure> failure() {
    return Optional.ofNullable(failure);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof JobOutcome other && Objects.equals(result, other.result)
        && Objects.equals(failure, other.failure);
  }

  @Override
  public int hashCode() {
    return Objects.hash(result, failure);
  }

  @Override
  public String toString() {
    return failure != null ? "JobOutcome[" + failure + "]"
        : result != null ? "JobOutcome[success, " + result + "]" : "JobOutcome[success]";
  }
}

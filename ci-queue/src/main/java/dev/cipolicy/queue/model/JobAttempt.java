package dev.cipolicy.queue.model;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a job as a store records it: the collector (host) that claimed it, the devices its lease
 * held, when it started (the claim) and, once its lease ended, when and how it ended and the error reported
 * with it. A store writes the record at the claim and completes it in the same transaction as the transition
 * that ends the lease (completion, failure, release, expiry, cancellation); {@link #endOf} computes that ending
 * from the job before and after the transition, so every store records the same values.
 *
 * @param jobId the job
 * @param attempt the attempt number, at least 1 (the lease's)
 * @param collector the collector that held the attempt's lease
 * @param devices the device indices the lease held, ascending; empty for a job that needs no GPU
 * @param startedAt when the attempt was claimed
 * @param endedAt when its lease ended; empty while it runs. An expired lease ended at its expiry
 * @param outcome how it ended; present exactly when {@code endedAt} is
 * @param error the failure detail of a failed attempt or the note of an expired one; empty otherwise
 */
public record JobAttempt(JobId jobId, int attempt, String collector, List<Integer> devices, Instant startedAt,
    Optional<Instant> endedAt, Optional<Outcome> outcome, Optional<String> error) {

  /** How an attempt ended. */
  public enum Outcome {
    /** Its holder completed the job. */
    SUCCEEDED,
    /** Its holder reported a permanent failure: the job failed. */
    FAILED,
    /** Its holder reported a transient failure: the job was queued again, or failed with the budget spent. */
    TRANSIENT_FAILURE,
    /** Its holder handed the job back: queued again, no budget spent. */
    RELEASED,
    /** Its lease expired with no report: the job was rescued, or failed with the crash budget spent. */
    EXPIRED,
    /** The job's request was cancelled while the attempt ran. */
    CANCELLED;

    /**
     * The name used in text and JSON output.
     *
     * @return e.g. {@code transient_failure}
     */
    public String documentName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * How one attempt ended, as {@link #endOf} computes it for a store to record.
   *
   * @param attempt the attempt that ended
   * @param outcome how
   * @param at when: the transition's instant, or the lease's expiry for an expired lease
   * @param error the failure detail or expiry note, if any
   */
  public record End(int attempt, Outcome outcome, Instant at, Optional<String> error) {
    /** Checks the components. */
    public End {
      Checks.atLeast(attempt, 1, "attempt");
      Checks.present(outcome, "attempt outcome");
      Checks.present(at, "attempt end");
      Checks.present(error, "attempt error");
    }
  }

  /** Checks the components and copies the device list. */
  public JobAttempt {
    Checks.present(jobId, "job id");
    Checks.atLeast(attempt, 1, "attempt");
    Checks.token(collector, "attempt collector");
    devices = List.copyOf(Checks.present(devices, "attempt devices"));
    Checks.present(startedAt, "attempt start");
    Checks.present(endedAt, "attempt end");
    Checks.present(outcome, "attempt outcome");
    Checks.present(error, "attempt error");
    if (endedAt.isPresent() != outcome.isPresent()) {
      throw new InvalidQueueInputException("attempt " + attempt + " of job " + jobId.value()
          + " has an end without an outcome or an outcome without an end; expected both or neither");
    }
  }

  /**
   * The record of an attempt a claim just started.
   *
   * @param lease the claim's lease
   * @param at the claim's instant
   * @return the running attempt
   */
  public static JobAttempt started(Lease lease, Instant at) {
    return new JobAttempt(lease.jobId(), lease.attempt(), lease.collector(), lease.devices(), at,
        Optional.empty(), Optional.empty(), Optional.empty());
  }

  /**
   * This attempt, ended.
   *
   * @param end how it ended
   * @return the ended attempt
   */
  public JobAttempt ended(End end) {
    return new JobAttempt(jobId, attempt, collector, devices, startedAt, Optional.of(end.at()),
        Optional.of(end.outcome()), end.error());
  }

  /**
   * Whether the attempt still runs (its lease has not ended).
   *
   * @return true while no outcome is recorded
   */
  public boolean running() {
    return outcome.isEmpty();
  }

  /**
   * How the attempt whose lease {@code before} held ended in the transition to {@code after}, or empty when
   * the transition kept that lease (a heartbeat, a cancellation flag) or {@code before} held none.
   *
   * @param before the job before the transition
   * @param after the job after it
   * @param now the transition's instant
   * @return the ending to record
   */
  public static Optional<End> endOf(Job before, Job after, Instant now) {
    Lease held = before.lease().orElse(null);
    if (held == null) {
      return Optional.empty();
    }
    Lease kept = after.lease().orElse(null);
    if (kept != null && kept.token() == held.token()) {
      return Optional.empty();
    }
    Instant at = held.isLiveAt(now) ? now : held.expiresAt();
    @Nullable JobFailure failure = after.failure().orElse(null);
    Outcome outcome;
    @Nullable String error = null;
    if (after.state() == JobState.SUCCEEDED) {
      outcome = Outcome.SUCCEEDED;
    } else if (after.state() == JobState.CANCELLED) {
      outcome = Outcome.CANCELLED;
    } else if (failure != null) {
      outcome = switch (failure.reason()) {
        case PERMANENT -> Outcome.FAILED;
        case TRANSIENT_BUDGET_EXHAUSTED -> Outcome.TRANSIENT_FAILURE;
        case CRASH_BUDGET_EXHAUSTED -> Outcome.EXPIRED;
      };
      error = failure.detail();
    } else if (after.transientRetries() > before.transientRetries()) {
      outcome = Outcome.TRANSIENT_FAILURE;
      error = after.lastError().orElse(null);
    } else if (after.crashRescues() > before.crashRescues()) {
      outcome = Outcome.EXPIRED;
      error = "lease of " + held.collector() + " expired at " + held.expiresAt() + " with no report";
    } else {
      outcome = Outcome.RELEASED;
    }
    return Optional.of(new End(held.attempt(), outcome, at, Optional.ofNullable(error)));
  }
}

package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.immutables.value.Value;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a job as a store records it: the collector (host) that claimed it, the devices its lease
 * held, when it started (the claim) and, once its lease ended, when and how it ended and the error reported
 * with it. A store writes the record at the claim and completes it in the same transaction as the transition
 * that ends the lease (completion, failure, release, expiry, cancellation); {@link #endOf} computes that ending
 * from the job before and after the transition, so every store records the same values.
 *
 * <p>A store builds one ({@link #started} at the claim, {@link #ended} at the lease's end, or {@link #builder()}:
 * job, attempt, collector and start required; no devices and no end by default); a host only reads it.
 * {@code build()} checks every field.
 */
@Value.Immutable
@ValueStyle
public abstract class JobAttempt {

  /**
   * The job.
   *
   * @return its id
   */
  public abstract JobId jobId();

  /**
   * The attempt number (the lease's).
   *
   * @return at least 1
   */
  public abstract int attempt();

  /**
   * The collector that held the attempt's lease.
   *
   * @return its name
   */
  public abstract String collector();

  /**
   * The device indices the lease held.
   *
   * @return ascending and distinct; empty (the default) for a job that needs no GPU
   */
  public abstract List<Integer> devices();

  /**
   * When the attempt was claimed.
   *
   * @return the claim's instant
   */
  public abstract Instant startedAt();

  /**
   * When its lease ended. An expired lease ended at its expiry.
   *
   * @return the end, not before the start; empty while it runs
   */
  public abstract Optional<Instant> endedAt();

  /**
   * How it ended.
   *
   * @return present exactly when {@link #endedAt} is
   */
  public abstract Optional<Outcome> outcome();

  /**
   * The failure detail of a failed attempt or the note of an expired one.
   *
   * @return the error; empty otherwise
   */
  public abstract Optional<String> error();

  /**
   * Checks the fields.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(attempt(), 1, "attempt");
    Checks.token(collector(), "attempt collector");
    Checks.ascendingDevices(devices(), "attempt devices", jobId());
    if (endedAt().isPresent() != outcome().isPresent()) {
      throw new InvalidQueueInputException("attempt " + attempt() + " of job " + jobId().value()
          + " has an end without an outcome or an outcome without an end; expected both or neither");
    }
    if (endedAt().isPresent() && endedAt().get().isBefore(startedAt())) {
      throw new InvalidQueueInputException("attempt " + attempt() + " of job " + jobId().value() + " ended at "
          + endedAt().get() + ", before it started at " + startedAt());
    }
  }

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

  /**
   * The record of an attempt a claim just started.
   *
   * @param lease the claim's lease
   * @param at the claim's instant
   * @return the running attempt
   */
  public static JobAttempt started(Lease lease, Instant at) {
    return builder().jobId(lease.jobId()).attempt(lease.attempt()).collector(lease.collector())
        .devices(lease.devices()).startedAt(at).build();
  }

  /**
   * This attempt, ended.
   *
   * @param end how it ended
   * @return the ended attempt
   */
  public JobAttempt ended(End end) {
    return builder().from(this).endedAt(end.at()).outcome(end.outcome()).error(end.error()).build();
  }

  /**
   * Whether the attempt still runs (its lease has not ended).
   *
   * @return true while no outcome is recorded
   */
  public boolean running() {
    return outcome().isEmpty();
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

  /**
   * A builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link JobAttempt}; {@link #build()} checks it. */
  public static final class Builder extends ImmutableJobAttempt.Builder {
    /** An empty builder. */
    Builder() {}
  }
}

package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import java.time.Instant;
import java.util.Optional;
import org.immutables.value.Value;
import org.jspecify.annotations.Nullable;

/**
 * A stored job: one benchmark group of one request on the collectors of one tag, with its state, the
 * counters of its attempts and budgets, its lease while leased, the collector it has affinity to, and
 * how it ended. The transition methods ({@link #created}, {@link #claimed}, {@link #renewed},
 * {@link #succeeded}, {@link #retriedAfterTransientFailure}, {@link #failed}, {@link #released},
 * {@link #rescued}, {@link #flaggedForCancellation}, {@link #cancelled}, {@link #retried}) are the only legal moves, so
 * every store records the same values; {@link #builder()} exists for stores that rebuild a job from a row.
 */
@Value.Immutable
@ValueStyle
public abstract class Job {

  /**
   * The store-given identity.
   *
   * @return the id
   */
  public abstract JobId id();

  /**
   * The request the job belongs to: the request that created it, or the parent it was backfilled to.
   *
   * @return the request id
   */
  public abstract RequestId requestId();

  /**
   * What the job runs; unique per request by group and tag.
   *
   * @return the spec
   */
  public abstract JobSpec spec();

  /**
   * Where the job is.
   *
   * @return the state
   */
  public abstract JobState state();

  /**
   * How many times the job was claimed; the attempt of its current lease.
   *
   * @return zero before the first claim
   */
  public abstract int attempt();

  /**
   * How many expired leases made the job claimable again (crash rescues), at most the crash budget.
   *
   * @return the rescues used
   */
  public abstract int crashRescues();

  /**
   * How many transient failures requeued the job, at most the transient budget.
   *
   * @return the transient retries used
   */
  public abstract int transientRetries();

  /**
   * The current lease.
   *
   * @return the lease, present exactly when leased
   */
  public abstract Optional<Lease> lease();

  /**
   * The collector the job prefers: the one that held it last before it was requeued by a transient
   * failure or a lease expiry (released jobs prefer nobody).
   *
   * @return the collector name
   */
  public abstract Optional<String> affinity();

  /**
   * Whether the job's request was cancelled while the job was leased; the holder learns it on its next
   * heartbeat.
   *
   * @return true only while leased
   */
  public abstract boolean cancelRequested();

  /**
   * Why the job failed.
   *
   * @return the failure, present exactly when failed
   */
  public abstract Optional<JobFailure> failure();

  /**
   * The detail of the last transient failure.
   *
   * @return the detail, present once a transient failure was reported
   */
  public abstract Optional<String> lastError();

  /**
   * When the store created the job.
   *
   * @return the creation instant
   */
  public abstract Instant createdAt();

  /**
   * When the job reached its terminal state.
   *
   * @return the instant, present exactly when terminal
   */
  public abstract Optional<Instant> finishedAt();

  /**
   * Rejects every combination of attributes that no sequence of transitions produces.
   *
   * @throws InvalidQueueInputException naming the attribute that does not fit the state
   */
  @Value.Check
  protected void check() {
    JobState state = state();
    require(attempt() >= 0 && crashRescues() >= 0 && transientRetries() >= 0, "counters are not negative");
    Lease lease = lease().orElse(null);
    require((state == JobState.LEASED) == (lease != null), "has a lease exactly when leased");
    require(lease == null || (lease.jobId().equals(id()) && lease.attempt() == attempt()),
        "its lease is for this job and its current attempt");
    require(lease == null || lease.devices().size() == spec().gpus(),
        "its lease holds as many devices as the job needs GPUs");
    require(state != JobState.LEASED || attempt() >= 1, "a leased job was claimed at least once");
    require(!cancelRequested() || state == JobState.LEASED, "only a leased job is flagged for cancellation");
    require((state == JobState.FAILED) == failure().isPresent(), "has a failure exactly when failed");
    require(state.isTerminal() == finishedAt().isPresent(), "has a finish instant exactly when terminal");
  }

  /** Fails with a message naming the job; the message is built only on failure. */
  private void require(boolean condition, String rule) {
    if (!condition) {
      throw new InvalidQueueInputException("job " + id().value() + " (" + state().documentName() + "): " + rule);
    }
  }

  /**
   * A job as a store creates it: queued, never claimed.
   *
   * @param id the id the store gives it
   * @param requestId the request it belongs to
   * @param spec what it runs
   * @param now the creation instant
   * @return the queued job
   */
  public static Job created(JobId id, RequestId requestId, JobSpec spec, Instant now) {
    return builder().id(id).requestId(requestId).spec(spec).state(JobState.QUEUED).attempt(0)
        .crashRescues(0).transientRetries(0).cancelRequested(false).createdAt(now).build();
  }

  /**
   * The lease a claim of this queued job at {@code now} gets: the next attempt, the given token.
   *
   * @param token a token the store never issued before
   * @param expiresAt the lease expiry
   * @param collector the claiming collector
   * @return the lease
   */
  public Lease nextLease(long token, Instant expiresAt, String collector) {
    return nextLease(token, expiresAt, collector, java.util.List.of());
  }

  /**
   * The lease a claim of this queued job at {@code now} gets on the given devices of the claimer.
   *
   * @param token a token the store never issued before
   * @param expiresAt the lease expiry
   * @param collector the claiming collector
   * @param devices the claimer's devices the job may use, as many as it needs
   * @return the lease
   */
  public Lease nextLease(long token, Instant expiresAt, String collector, java.util.List<Integer> devices) {
    return Lease.builder().jobId(id()).attempt(attempt() + 1).token(token).expiresAt(expiresAt).collector(collector)
        .devices(devices).build();
  }

  /**
   * This queued job, claimed under the given lease (from {@link #nextLease}).
   *
   * @param lease the new lease
   * @return the leased job, with affinity to the claiming collector
   */
  public Job claimed(Lease lease) {
    expect(JobState.QUEUED, "claim");
    if (lease.attempt() != attempt() + 1 || !lease.jobId().equals(id())) {
      throw new IllegalStateException("lease " + lease + " is not the next lease of " + id());
    }
    return next(JobState.LEASED, lease.attempt(), crashRescues(),
        transientRetries(), lease, lease.collector(), false, null, lastError(), null);
  }

  /**
   * This leased job with its lease renewed until {@code expiresAt}.
   *
   * @param expiresAt the new expiry
   * @return the job
   */
  public Job renewed(Instant expiresAt) {
    Lease lease = leaseOrFail("renew");
    return next(JobState.LEASED, attempt(), crashRescues(), transientRetries(), lease.renewedUntil(expiresAt),
        affinity().orElse(null), cancelRequested(), null, lastError(), null);
  }

  /**
   * This leased job, completed by its holder.
   *
   * @param now the completion instant
   * @return the succeeded job
   */
  public Job succeeded(Instant now) {
    leaseOrFail("complete");
    return next(JobState.SUCCEEDED, attempt(), crashRescues(), transientRetries(), null,
        affinity().orElse(null), false, null, lastError(), now);
  }

  /**
   * This leased job after a transient failure within the budget: queued again, one more transient
   * retry used, affinity to the holder kept.
   *
   * @param detail the failure detail
   * @return the queued job
   */
  public Job retriedAfterTransientFailure(String detail) {
    leaseOrFail("retry");
    return next(JobState.QUEUED, attempt(), crashRescues(), transientRetries() + 1, null,
        affinity().orElse(null), false, null, detail, null);
  }

  /**
   * This job, failed for good.
   *
   * @param failure why
   * @return the failed job
   */
  public Job failed(JobFailure failure) {
    if (state().isTerminal()) {
      throw new IllegalStateException("cannot fail " + id() + ": it is " + state().documentName());
    }
    return next(JobState.FAILED, attempt(), crashRescues(), transientRetries(), null, affinity().orElse(null),
        false, failure, lastError(), failure.at());
  }

  /**
   * This leased job, handed back by its holder: queued again, no budget spent, no affinity.
   *
   * @return the queued job
   */
  public Job released() {
    leaseOrFail("release");
    return next(JobState.QUEUED, attempt(), crashRescues(), transientRetries(), null, null, false, null,
        lastError(), null);
  }

  /**
   * This job with an expired lease, made claimable again: one more crash rescue used, affinity to the
   * holder kept.
   *
   * @return the queued job
   */
  public Job rescued() {
    leaseOrFail("rescue");
    return next(JobState.QUEUED, attempt(), crashRescues() + 1, transientRetries(), null,
        affinity().orElse(null), false, null, lastError(), null);
  }

  /**
   * This leased job, flagged because its request was cancelled.
   *
   * @return the flagged job
   */
  public Job flaggedForCancellation() {
    Lease lease = leaseOrFail("flag");
    return next(JobState.LEASED, attempt(), crashRescues(), transientRetries(), lease, affinity().orElse(null),
        true, null, lastError(), null);
  }

  /**
   * This queued or leased job, cancelled with its request.
   *
   * @param now the cancellation instant
   * @return the cancelled job
   */
  public Job cancelled(Instant now) {
    if (state().isTerminal()) {
      throw new IllegalStateException("cannot cancel " + id() + ": it is " + state().documentName());
    }
    return next(JobState.CANCELLED, attempt(), crashRescues(), transientRetries(), null, affinity().orElse(null),
        false, null, lastError(), now);
  }

  /**
   * This failed or cancelled job, queued again by an operator's retry: fresh budgets (no crash rescue and no
   * transient retry used), no affinity, no failure, no finish instant; its attempt count and last error are
   * kept, so its next claim is a new attempt with a log of its own.
   *
   * @return the queued job
   * @throws IllegalStateException when the job is neither failed nor cancelled (a store fault)
   */
  public Job retried() {
    if (state() != JobState.FAILED && state() != JobState.CANCELLED) {
      throw new IllegalStateException("cannot retry " + id() + ": it is " + state().documentName()
          + ", expected failed or cancelled");
    }
    return next(JobState.QUEUED, attempt(), 0, 0, null, null, false, null, lastError(), null);
  }

  private Lease leaseOrFail(String transition) {
    return lease().orElseThrow(() -> new IllegalStateException("cannot " + transition + " " + id() + ": it is "
        + state().documentName() + ", expected leased"));
  }

  private void expect(JobState state, String transition) {
    if (state() != state) {
      throw new IllegalStateException("cannot " + transition + " " + id() + ": it is " + state().documentName()
          + ", expected " + state.documentName());
    }
  }

  private Job next(JobState state, int attempt, int crashRescues, int transientRetries, @Nullable Lease lease,
      @Nullable String affinity, boolean cancelRequested, @Nullable JobFailure failure, Optional<String> lastError,
      @Nullable Instant finishedAt) {
    return next(state, attempt, crashRescues, transientRetries, lease, affinity, cancelRequested, failure,
        lastError.orElse(null), finishedAt);
  }

  private Job next(JobState state, int attempt, int crashRescues, int transientRetries, @Nullable Lease lease,
      @Nullable String affinity, boolean cancelRequested, @Nullable JobFailure failure, @Nullable String lastError,
      @Nullable Instant finishedAt) {
    Builder b = builder().id(id()).requestId(requestId()).spec(spec()).state(state)
        .attempt(attempt).crashRescues(crashRescues).transientRetries(transientRetries)
        .cancelRequested(cancelRequested).createdAt(createdAt());
    if (lease != null) {
      b.lease(lease);
    }
    if (affinity != null) {
      b.affinity(affinity);
    }
    if (failure != null) {
      b.failure(failure);
    }
    if (lastError != null) {
      b.lastError(lastError);
    }
    if (finishedAt != null) {
      b.finishedAt(finishedAt);
    }
    return b.build();
  }

  /**
   * A new builder, for stores that rebuild a job from a row.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Job}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableJob.Builder {
    Builder() {}
  }
}

package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.time.Instant;
import java.util.List;
import org.immutables.value.Value;

/**
 * A collector's time-limited right to run one attempt of a job: the job, the attempt number, the fencing
 * token and the expiry. Heartbeat, complete, fail and release succeed only with the job's current attempt
 * and token while the lease is live; anything else is a stale lease and changes nothing.
 *
 * <p>A store builds one ({@link #builder()}: job, attempt, token, expiry and collector required; no devices by
 * default); a host only reads it.
 */
@Value.Immutable
@ValueStyle
public abstract class Lease {

  /**
   * The leased job.
   *
   * @return its id
   */
  public abstract JobId jobId();

  /**
   * The job's attempt this lease is for; every claim increments it.
   *
   * @return at least 1
   */
  public abstract int attempt();

  /**
   * The fencing token, unique among all leases a store ever issued.
   *
   * @return the token
   */
  public abstract long token();

  /**
   * The first instant at which the lease is no longer live.
   *
   * @return the expiry
   */
  public abstract Instant expiresAt();

  /**
   * The collector holding the lease.
   *
   * @return its name
   */
  public abstract String collector();

  /**
   * The indices of the holder's GPU devices the job may use, ascending (the host sets {@code CUDA_VISIBLE_DEVICES}
   * from them); empty for a job that needs none. No two live leases share a device of the same collector.
   *
   * @return the device indices; empty by default
   */
  public abstract List<Integer> devices();

  /**
   * Checks the fields.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(attempt(), 1, "lease attempt");
    Checks.token(collector(), "lease collector");
    Checks.ascendingDevices(devices(), "lease devices", jobId());
  }

  /**
   * Whether the lease is live at the given instant.
   *
   * @param now the instant
   * @return true when {@code now} is before the expiry
   */
  public boolean isLiveAt(Instant now) {
    return now.isBefore(expiresAt());
  }

  /**
   * Whether the fence (job, attempt, token) of this lease matches the given one.
   *
   * @param jobId a job id
   * @param attempt an attempt
   * @param token a token
   * @return true when all three match
   */
  public boolean fences(JobId jobId, int attempt, long token) {
    return jobId().equals(jobId) && attempt() == attempt && token() == token;
  }

  /**
   * The same lease with a new expiry (a renewal keeps attempt and token).
   *
   * @param newExpiry the new expiry
   * @return the renewed lease
   */
  public Lease renewedUntil(Instant newExpiry) {
    return builder().from(this).expiresAt(newExpiry).build();
  }

  /**
   * A builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Lease}; {@link #build()} checks it. */
  public static final class Builder extends ImmutableLease.Builder {
    /** An empty builder. */
    Builder() {}
  }
}

package dev.cipolicy.queue.spi;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Request;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What purging an artifact did ({@link QueueStore#purge}): removed its request with its jobs and their
 * results, or nothing, with the reason.
 *
 * <p>Build one with {@link #unchanged} or {@link #builder()} (the status is required; no request and
 * nothing removed by default).
 */
@Value.Immutable
@ValueStyle
public abstract class PurgeResult {

  /** What purging did. */
  public enum Status {
    /** The request, its jobs and their results are gone. */
    PURGED,
    /** No request has the tag; nothing changed (a reported no-op). */
    NOT_FOUND,
    /**
     * The request is open (waiting, ready or in progress); nothing changed. Cancel it first: purging never
     * takes work away from a running request behind the site's back.
     */
    REQUEST_OPEN,
    /**
     * A job of the closed request is leased (an optional job, or one backfilled to it, still running);
     * nothing changed. Purge again once its lease ends.
     */
    JOB_LEASED
  }

  /**
   * What happened.
   *
   * @return the status
   */
  public abstract Status status();

  /**
   * The request as it was before it was removed, or the request that was left alone.
   *
   * @return the request; absent when no request has the tag
   */
  public abstract Optional<Request> request();

  /**
   * How many jobs were removed (the request's own and those backfilled to it).
   *
   * @return at least 0; default 0
   */
  @Value.Default
  public int jobsRemoved() {
    return 0;
  }

  /**
   * How many job results were removed.
   *
   * @return at least 0; default 0
   */
  @Value.Default
  public int resultsRemoved() {
    return 0;
  }

  /**
   * Checks the counts.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(jobsRemoved(), 0, "removed jobs");
    Checks.atLeast(resultsRemoved(), 0, "removed results");
  }

  /**
   * Nothing removed.
   *
   * @param status why
   * @param request the request left alone, if any
   * @return the result
   */
  public static PurgeResult unchanged(Status status, Optional<Request> request) {
    return builder().status(Checks.present(status, "purge status"))
        .request(Checks.present(request, "purge request")).build();
  }

  /**
   * A new builder; {@code build()} checks every field.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link PurgeResult}. */
  public static final class Builder extends ImmutablePurgeResult.Builder {
    Builder() {}
  }
}

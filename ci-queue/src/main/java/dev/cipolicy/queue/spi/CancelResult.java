package dev.cipolicy.queue.spi;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Request;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What cancelling a request did: cancelled it, its queued jobs and flagged its leased ones, or nothing
 * because it already finished.
 *
 * <p>Build one with {@link #unchanged} or {@link #builder()} (the status is required; no request and no
 * jobs cancelled or flagged by default).
 */
@Value.Immutable
@ValueStyle
public abstract class CancelResult {

  /** What cancelling did. */
  public enum Status {
    /** The request is cancelled now. */
    CANCELLED,
    /** The request had already completed or been cancelled; nothing changed. */
    ALREADY_FINISHED,
    /** No request has this id. */
    NOT_FOUND
  }

  /**
   * What happened.
   *
   * @return the status
   */
  public abstract Status status();

  /**
   * The request after the operation.
   *
   * @return the request; absent when not found
   */
  public abstract Optional<Request> request();

  /**
   * How many queued jobs were cancelled.
   *
   * @return at least 0; default 0
   */
  @Value.Default
  public int queuedJobsCancelled() {
    return 0;
  }

  /**
   * How many leased jobs were flagged; their holders learn it on the next heartbeat.
   *
   * @return at least 0; default 0
   */
  @Value.Default
  public int leasedJobsFlagged() {
    return 0;
  }

  /**
   * Checks the counts.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(queuedJobsCancelled(), 0, "cancelled jobs");
    Checks.atLeast(leasedJobsFlagged(), 0, "flagged jobs");
  }

  /**
   * Nothing cancelled or flagged.
   *
   * @param status why
   * @param request the request, when found
   * @return the result
   */
  public static CancelResult unchanged(Status status, Optional<Request> request) {
    return builder().status(Checks.present(status, "cancel status"))
        .request(Checks.present(request, "cancel request")).build();
  }

  /**
   * A new builder; {@code build()} checks every field.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link CancelResult}. */
  public static final class Builder extends ImmutableCancelResult.Builder {
    Builder() {}
  }
}

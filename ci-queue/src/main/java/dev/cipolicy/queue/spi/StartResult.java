package dev.cipolicy.queue.spi;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Request;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What {@link QueueStore#startRequest} did: started the request and created its jobs, or nothing because
 * the cap is reached or the request is not ready.
 *
 * <p>Build one with {@link #unchanged} or {@link #builder()} (the status and the in-progress count are
 * required; no request, no jobs and no backfill by default).
 */
@Value.Immutable
@ValueStyle
public abstract class StartResult {

  /** What starting did. */
  public enum Status {
    /** The request is in progress and its jobs exist. */
    STARTED,
    /** As many requests as the cap allows are in progress; nothing changed. */
    CAP_REACHED,
    /** The request is not ready (waiting, already started, completed or cancelled); nothing changed. */
    NOT_READY,
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
   * The jobs created for the request.
   *
   * @return the jobs in order; empty unless started (the default)
   */
  public abstract List<Job> jobs();

  /**
   * What happened to the parent.
   *
   * @return the backfill; default {@link Backfill.Status#NOT_REQUESTED} without a parent
   */
  @Value.Default
  public Backfill backfill() {
    return Backfill.none(Backfill.Status.NOT_REQUESTED, Optional.empty());
  }

  /**
   * How many requests are in progress after the operation.
   *
   * @return at least 0
   */
  public abstract int inProgress();

  /**
   * Checks the count.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(inProgress(), 0, "requests in progress");
  }

  /**
   * A start that changed nothing.
   *
   * @param status why
   * @param request the request, when found
   * @param inProgress how many requests are in progress
   * @return the result
   */
  public static StartResult unchanged(Status status, Optional<Request> request, int inProgress) {
    return builder().status(Checks.present(status, "start status"))
        .request(Checks.present(request, "start request")).inProgress(inProgress).build();
  }

  /**
   * A new builder; {@code build()} checks every field.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link StartResult}. */
  public static final class Builder extends ImmutableStartResult.Builder {
    Builder() {}
  }
}

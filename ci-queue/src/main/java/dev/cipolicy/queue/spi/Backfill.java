package dev.cipolicy.queue.spi;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What starting a request did to its parent: the jobs enqueued for the parent (existing ones are
 * no-ops), or why nothing was enqueued.
 *
 * <p>Build one with {@link #none}, {@link #refusedBy} or {@link #builder()} (the status is required; no
 * parent, no jobs created and none existing by default).
 */
@Value.Immutable
@ValueStyle
public abstract class Backfill {

  /** What happened to the parent. */
  public enum Status {
    /** Backfill was not asked for, or the request did not start. */
    NOT_REQUESTED,
    /** The request has no parent SHA (a release, a root commit). */
    NO_PARENT,
    /** No request has the parent SHA as its tag. */
    PARENT_UNKNOWN,
    /** The parent exists but never started (it is waiting or ready). */
    PARENT_NOT_STARTED,
    /** The parent was cancelled. */
    PARENT_CANCELLED,
    /** The parent is in progress or completed; the jobs it lacked were created. */
    ENQUEUED
  }

  /**
   * What happened.
   *
   * @return the status
   */
  public abstract Status status();

  /**
   * The parent request, when it exists.
   *
   * @return its id
   */
  public abstract Optional<RequestId> parent();

  /**
   * The jobs newly created for the parent.
   *
   * @return the jobs in order; default none
   */
  public abstract List<Job> created();

  /**
   * How many of the jobs the parent already had.
   *
   * @return at least 0; default 0
   */
  @Value.Default
  public int existing() {
    return 0;
  }

  /**
   * Checks the count.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(existing(), 0, "existing backfill jobs");
  }

  /**
   * A backfill that enqueued nothing.
   *
   * @param status why
   * @param parent the parent, when known
   * @return the backfill
   */
  public static Backfill none(Status status, Optional<RequestId> parent) {
    return builder().status(Checks.present(status, "backfill status"))
        .parent(Checks.present(parent, "backfill parent")).build();
  }

  /**
   * Why a parent in this state takes no backfilled jobs: only a parent that is in progress or completed
   * does (a cancelled parent never runs again; one not yet started gets its jobs when it starts).
   *
   * @param parent the parent request
   * @return the refusal, or empty when the parent accepts backfill
   */
  public static Optional<Backfill> refusedBy(Request parent) {
    Optional<RequestId> id = Optional.of(parent.id());
    return switch (parent.state()) {
      case CANCELLED -> Optional.of(none(Status.PARENT_CANCELLED, id));
      case WAITING_FOR_ARTIFACTS, ARTIFACTS_READY -> Optional.of(none(Status.PARENT_NOT_STARTED, id));
      default -> Optional.empty();
    };
  }

  /**
   * A new builder; {@code build()} checks every field.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Backfill}. */
  public static final class Builder extends ImmutableBackfill.Builder {
    Builder() {}
  }
}

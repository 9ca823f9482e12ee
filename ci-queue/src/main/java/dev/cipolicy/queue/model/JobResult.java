package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.time.Instant;
import org.immutables.value.Value;

/**
 * A job's result as a store keeps it: written in the step that marked the job succeeded, by the lease that
 * did it, and never changed afterwards. A store builds one ({@link #builder()}, every field required); a host
 * only reads it.
 */
@Value.Immutable
@ValueStyle
public abstract class JobResult {

  /**
   * The job.
   *
   * @return its id
   */
  public abstract JobId jobId();

  /**
   * The request the job belongs to.
   *
   * @return its id
   */
  public abstract RequestId requestId();

  /**
   * The attempt of the lease that completed the job.
   *
   * @return at least 1
   */
  public abstract int attempt();

  /**
   * The collector that held that lease.
   *
   * @return its name
   */
  public abstract String collector();

  /**
   * When it was kept, on the store's clock (the job's finish instant).
   *
   * @return the instant
   */
  public abstract Instant storedAt();

  /**
   * The result.
   *
   * @return the payload
   */
  public abstract ResultPayload payload();

  /**
   * Checks the fields.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.atLeast(attempt(), 1, "result attempt");
    Checks.token(collector(), "result collector");
  }

  /**
   * A builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link JobResult}; {@link #build()} checks it. */
  public static final class Builder extends ImmutableJobResult.Builder {
    /** An empty builder. */
    Builder() {}
  }
}

package dev.cipolicy.queue.spi;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.time.Duration;
import org.immutables.value.Value;

/**
 * The arguments of {@link QueueStore#claim}: who claims, for how long (on the store's clock), under which affinity timeout
 * and crash-rescue budget, and at most how many jobs.
 *
 * <p>Build one with {@link #builder()}: the collector and the lease duration are required; the collector
 * timeout defaults to the lease duration, the crash-rescue budget to 2 and the limit to 1 (the engine's
 * defaults). {@code build()} checks every field.
 */
@Value.Immutable
@ValueStyle
public abstract class ClaimCommand {

  /**
   * The claiming collector's name; it claims jobs of its registered tag.
   *
   * @return the name
   */
  public abstract String collector();

  /**
   * How long each lease lasts unless renewed.
   *
   * @return a positive duration
   */
  public abstract Duration leaseDuration();

  /**
   * The heartbeat age after which a collector is gone: its requeued jobs lose their affinity to it.
   *
   * @return a positive duration; default the lease duration
   */
  @Value.Default
  public Duration collectorTimeout() {
    return leaseDuration();
  }

  /**
   * The crash-rescue budget applied to expired leases found on the way.
   *
   * @return at least 0; default 2
   */
  @Value.Default
  public int maxCrashRescues() {
    return 2;
  }

  /**
   * The most jobs to claim.
   *
   * @return at least 1; default 1
   */
  @Value.Default
  public int limit() {
    return 1;
  }

  /**
   * Checks the fields.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.token(collector(), "collector name");
    Checks.positive(leaseDuration(), "lease duration");
    Checks.positive(collectorTimeout(), "collector timeout");
    Checks.atLeast(maxCrashRescues(), 0, "crash-rescue budget");
    Checks.atLeast(limit(), 1, "claim limit");
  }

  /**
   * A new builder; {@code build()} checks every field.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ClaimCommand}. */
  public static final class Builder extends ImmutableClaimCommand.Builder {
    Builder() {}
  }
}

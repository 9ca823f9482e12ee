package dev.cipolicy.queue.spi;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.RequestId;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.immutables.value.Value;

/**
 * The arguments of {@link QueueStore#startRequest}: which ready request to start, the jobs to create for
 * it, whether to backfill the same jobs to its parent, and the in-progress cap to enforce.
 *
 * <p>Build one with {@link #builder()}: the request id is required; the jobs default to none, backfill to
 * off and the cap to 1 (the engine's default). {@code build()} checks every field.
 */
@Value.Immutable
@ValueStyle
public abstract class StartCommand {

  /**
   * The request to start.
   *
   * @return its id
   */
  public abstract RequestId requestId();

  /**
   * The jobs to create.
   *
   * @return the specs in order, unique by group and tag; default none
   */
  public abstract List<JobSpec> jobs();

  /**
   * Whether to enqueue the same jobs for the parent request.
   *
   * @return default false
   */
  @Value.Default
  public boolean backfillParent() {
    return false;
  }

  /**
   * The cap K: start only if fewer requests are in progress.
   *
   * @return at least 1; default 1
   */
  @Value.Default
  public int maxInProgress() {
    return 1;
  }

  /**
   * Checks the jobs and the cap.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Set<List<String>> keys = new HashSet<>();
    for (JobSpec spec : jobs()) {
      if (!keys.add(List.of(spec.benchmarkGroup(), spec.collectorTag()))) {
        throw new InvalidQueueInputException("the jobs of " + requestId() + " list " + spec.benchmarkGroup() + "@"
            + spec.collectorTag() + " twice; expected each group and tag at most once");
      }
    }
    Checks.atLeast(maxInProgress(), 1, "maximum of requests in progress");
  }

  /**
   * A new builder; {@code build()} checks every field.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link StartCommand}. */
  public static final class Builder extends ImmutableStartCommand.Builder {
    Builder() {}
  }
}

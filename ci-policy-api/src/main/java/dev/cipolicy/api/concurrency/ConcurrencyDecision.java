package dev.cipolicy.api.concurrency;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Locale;
import org.immutables.value.Value;

/**
 * The outcome of an event for its concurrency group: the new run's group key and verdict, and for each
 * in-flight run, in input order, whether it is kept or cancelled and why, with an explanation.
 */
@Value.Immutable
@ValueStyle
public abstract class ConcurrencyDecision {

  /** What happens to the run the event asks for. */
  public enum NewRun {
    /** The run starts at once. */
    START,
    /** The run waits until the runs of its group have finished. */
    QUEUED,
    /**
     * The run only cancels: every root job is guarded off, so no policy is resolved, no image built and
     * no test run ({@code closed}, and {@code merged} when it cancels).
     */
    CANCELLATION_ONLY,
    /** The event starts no run (an ignored event type, or a label irrelevant to CI). */
    IGNORED;

    /**
     * The name used in text and JSON output.
     *
     * @return e.g. {@code cancellation_only}
     */
    public String documentName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The new run's group key: the workflow's prefix and the event's key suffix.
   *
   * @return e.g. {@code pr-test-123}
   */
  public abstract String groupKey();

  /**
   * The new run's verdict.
   *
   * @return the verdict
   */
  public abstract NewRun newRun();

  /**
   * One decision per in-flight run, in input order.
   *
   * @return the decisions
   */
  public abstract List<RunDecision> runs();

  /**
   * Why the decision came out as it did.
   *
   * @return the explanation
   */
  public abstract Explanation explanation();

  /**
   * The ids of the runs to cancel, in input order.
   *
   * @return run ids
   */
  public List<String> cancelledRunIds() {
    return runs().stream().filter(r -> r.action() == RunDecision.Action.CANCEL).map(RunDecision::runId)
        .toList();
  }

  /**
   * Whether the new run is cancellation-only; the flag a workflow guards its root jobs with.
   *
   * @return true for {@link NewRun#CANCELLATION_ONLY}
   */
  public boolean cancellationOnly() {
    return newRun() == NewRun.CANCELLATION_ONLY;
  }

  /**
   * Rejects an empty group key.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("ConcurrencyDecision").nonEmpty("groupKey", groupKey()).done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ConcurrencyDecision}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableConcurrencyDecision.Builder {
    Builder() {}
  }
}

package dev.cipolicy.api.concurrency;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import org.immutables.value.Value;

/** What an event does to one in-flight run: keep it or cancel it, and why. */
@Value.Immutable
@ValueStyle
public abstract class RunDecision {

  /** The fate of an in-flight run. */
  public enum Action {
    /** The run goes on. */
    KEEP,
    /** The run is cancelled, queued or running. */
    CANCEL;

    /**
     * The name used in text and JSON output.
     *
     * @return {@code keep} or {@code cancel}
     */
    public String documentName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * The in-flight run's id.
   *
   * @return the run id as given
   */
  public abstract String runId();

  /**
   * Keep or cancel.
   *
   * @return the action
   */
  public abstract Action action();

  /**
   * Why, as a sentence fragment naming the rule and the values it compared.
   *
   * @return e.g. {@code pull request #123 was closed: ...}
   */
  public abstract String reason();

  /**
   * Rejects an empty run id and an empty reason.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("RunDecision").nonEmpty("runId", runId()).nonEmpty("reason", reason()).done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link RunDecision}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRunDecision.Builder {
    Builder() {}
  }
}

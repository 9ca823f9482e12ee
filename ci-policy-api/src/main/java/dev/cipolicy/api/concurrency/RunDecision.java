package dev.cipolicy.api.concurrency;

import dev.cipolicy.api.internal.ValueStyle;
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
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableRunDecision.Builder builder() {
    return ImmutableRunDecision.builder();
  }
}

package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * A PR label that changes how the workflow runs rather than which tests are selected, e.g. {@code nightly}
 * (switches a PR to the nightly cadence) or {@code bypass-fastfail}.
 */
@Value.Immutable
@ValueStyle
public abstract class WorkflowLabel {
  /**
   * The exact GitHub label.
   *
   * @return e.g. {@code nightly}
   */
  public abstract String name();

  /**
   * What the label does.
   *
   * @return a human description, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * The cadence this label switches a pull request to; the label is then an error with any other
   * cadence.
   *
   * @return the cadence name, if the label switches cadence
   */
  public abstract Optional<String> switchesCadence();

  /**
   * Whether the label makes the run continue after the first failing stage.
   *
   * @return true for {@code bypass-fastfail}
   */
  @Value.Default
  public boolean bypassFastfail() {
    return false;
  }

  /**
   * Rejects an empty name.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("WorkflowLabel").nonEmpty("name", name()).done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link WorkflowLabel}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableWorkflowLabel.Builder {
    Builder() {}
  }
}

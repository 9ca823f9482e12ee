package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * A test area that a pull request can request with the label prefix, e.g. {@code megatron} requested
 * by {@code run-ci-megatron}.
 */
@Value.Immutable
@ValueStyle
public abstract class DomainLabel {
  /**
   * The label name without prefix.
   *
   * @return e.g. {@code megatron}
   */
  public abstract String name();

  /**
   * What the label covers.
   *
   * @return a human description, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * Rejects an empty name.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("DomainLabel").nonEmpty("name", name()).done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link DomainLabel}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableDomainLabel.Builder {
    Builder() {}
  }
}

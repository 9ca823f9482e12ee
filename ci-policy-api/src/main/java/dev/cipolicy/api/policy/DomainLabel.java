package dev.cipolicy.api.policy;

import dev.cipolicy.api.internal.ValueStyle;
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
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableDomainLabel.Builder builder() {
    return ImmutableDomainLabel.builder();
  }
}

package dev.cipolicy.api.policy;

import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * One rule of the label scope precedence: when it matches, the run includes every known label
 * except {@link #except()}. Rules are tried in order and the first match wins.
 */
@Value.Immutable
@ValueStyle
public abstract class ScopeRule {
  /**
   * The rule name used in explanations.
   *
   * @return e.g. {@code all}
   */
  public abstract String name();

  /**
   * What the rule is for.
   *
   * @return a human description, possibly empty
   */
  @Value.Default
  public String description() {
    return "";
  }

  /**
   * Raw labels (as received, with prefix) any of which makes the rule match, e.g. {@code run-ci-all}.
   *
   * @return the scope labels
   */
  public abstract List<String> whenLabels();

  /**
   * Cadences any of which makes the rule match.
   *
   * @return cadence names
   */
  public abstract List<String> whenCadences();

  /**
   * Known labels the scope leaves out (an explicit request still includes them).
   *
   * @return domain label names
   */
  public abstract List<String> except();

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ScopeRule}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableScopeRule.Builder {
    Builder() {}
  }
}

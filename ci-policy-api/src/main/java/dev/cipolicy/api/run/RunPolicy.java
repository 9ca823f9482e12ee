package dev.cipolicy.api.run;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.internal.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * The resolved decision for one run: cadence, included labels and the three flags, with the
 * warnings raised on the way and an explanation of why.
 */
@Value.Immutable
@ValueStyle
public abstract class RunPolicy {

  /**
   * The cadence of the run.
   *
   * @return a declared cadence name
   */
  public abstract String cadence();

  /**
   * The raw labels the run was resolved from, order and duplicates kept.
   *
   * @return e.g. {@code [run-ci-megatron, bypass-fastfail]}
   */
  public abstract List<String> rawLabels();

  /**
   * Known labels requested explicitly through the prefix, sorted.
   *
   * @return domain label names
   */
  public abstract List<String> requestedLabels();

  /**
   * The labels the run includes: scope ∪ requested, sorted; always a subset of the known labels.
   *
   * @return domain label names
   */
  public abstract List<String> includeLabels();

  /**
   * The scope rule that matched.
   *
   * @return the rule name, absent when no rule matched (empty scope)
   */
  public abstract Optional<String> scope();

  /**
   * Whether nightly-only tests are admitted.
   *
   * @return the flag
   */
  public abstract boolean admitNightlyTests();

  /**
   * Whether the run continues after the first failing stage.
   *
   * @return the flag
   */
  public abstract boolean bypassFastfail();

  /**
   * Whether the run writes metric baselines.
   *
   * @return the flag
   */
  public abstract boolean writeBaseline();

  /**
   * Inputs that were ignored, as values.
   *
   * @return warnings in input order
   */
  public abstract List<Warning> warnings();

  /**
   * Why the policy came out as it did.
   *
   * @return the explanation
   */
  public abstract Explanation explanation();

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableRunPolicy.Builder builder() {
    return ImmutableRunPolicy.builder();
  }
}

package dev.cipolicy.api.run;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
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
   * Rejects an empty cadence, label lists that are not sorted without repeats, and requested labels the
   * run does not include.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("RunPolicy").nonEmpty("cadence", cadence())
        .require(sortedOnce(requestedLabels()), "requestedLabels",
            () -> "must be sorted and list each label once, got " + requestedLabels())
        .require(sortedOnce(includeLabels()), "includeLabels",
            () -> "must be sorted and list each label once, got " + includeLabels())
        .require(includeLabels().containsAll(requestedLabels()), "includeLabels",
            () -> "must include every requested label " + requestedLabels() + ", got " + includeLabels())
        .done();
  }

  private static boolean sortedOnce(List<String> labels) {
    for (int i = 1; i < labels.size(); i++) {
      if (labels.get(i - 1).compareTo(labels.get(i)) >= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link RunPolicy}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRunPolicy.Builder {
    Builder() {}
  }
}

package dev.cipolicy.api.suite;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * What one suite (or one shard of it) runs under a run policy: the enabled tests in run
 * order with their timeouts, the skipped tests with reasons, and whether to continue after a failure.
 * Zero selected tests is a success, with {@link #message()} saying that nothing matched.
 */
@Value.Immutable
@ValueStyle
public abstract class SuiteRunPlan {
  /**
   * The backend.
   *
   * @return e.g. {@code cuda}
   */
  public abstract String backend();

  /**
   * The suite.
   *
   * @return e.g. {@code stage-c-4-gpu-h200}
   */
  public abstract String suite();

  /**
   * The run policy in one line.
   *
   * @return e.g. {@code cadence=nightly include=[...] admit_nightly_tests=true ...}
   */
  public abstract String policyLine();

  /**
   * The shard this plan covers.
   *
   * @return rank and size, absent for the whole suite
   */
  public abstract Optional<Shard> shard();

  /**
   * Enabled tests in run order.
   *
   * @return test files
   */
  public abstract List<String> enabled();

  /**
   * Disabled tests that would otherwise have been selected, with reasons.
   *
   * @return skipped tests in file order
   */
  public abstract List<SkippedTest> skipped();

  /**
   * Whether the suite continues after the first failing file (bypass fast-fail).
   *
   * @return the flag
   */
  public abstract boolean continueOnError();

  /**
   * The sum of the enabled tests' estimated times.
   *
   * @return seconds
   */
  public abstract double estTotalSeconds();

  /**
   * Per-file timeout: {@code max(base, floor(est_time × factor))}.
   *
   * @return file → seconds, in run order
   */
  public abstract Map<String, Long> timeouts();

  /**
   * The matrix max-parallel for this suite in this cadence.
   *
   * @return at least 1
   */
  public abstract int maxParallel();

  /**
   * A human summary; says explicitly when nothing matched.
   *
   * @return the message
   */
  public abstract String message();

  /**
   * Why these tests were chosen.
   *
   * @return the explanation
   */
  public abstract Explanation explanation();

  /**
   * One shard of a suite matrix.
   *
   * @param rank 0-based shard index; {@code SuiteRegistry.plan} rejects one outside {@code [0, size)}
   * @param size number of shards
   */
  public record Shard(int rank, int size) {}

  /**
   * Rejects an empty backend or suite, a max-parallel below 1, an estimated total that is negative or not
   * finite, and timeouts that are not exactly the enabled tests in run order.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("SuiteRunPlan").nonEmpty("backend", backend()).nonEmpty("suite", suite())
        .atLeast("maxParallel", maxParallel(), 1)
        .require(Double.isFinite(estTotalSeconds()) && estTotalSeconds() >= 0, "estTotalSeconds",
            () -> "must be a finite number of seconds, at least 0; got " + estTotalSeconds())
        .require(List.copyOf(timeouts().keySet()).equals(enabled()), "timeouts",
            () -> "must have one entry per enabled test, in run order; got " + timeouts().keySet() + " for "
                + enabled())
        .done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link SuiteRunPlan}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableSuiteRunPlan.Builder {
    Builder() {}
  }
}

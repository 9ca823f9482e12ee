package dev.cipolicy.api.suite;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.internal.ValueStyle;
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
   * @param rank 0-based shard index
   * @param size number of shards
   */
  public record Shard(int rank, int size) {}

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableSuiteRunPlan.Builder builder() {
    return ImmutableSuiteRunPlan.builder();
  }
}

package dev.cipolicy.api.suite;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.value.ValueCheck;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One job of a resolved run: one shard of one suite, with the test files it runs, the GPUs and pool it
 * needs, how long it is expected to take and when it is cut off. A scheduler queues one job per planned
 * job; a suite of one shard gives one planned job, a suite of n shards up to n (a shard without a selected
 * test is not planned).
 *
 * @param backend the backend of the suite, e.g. {@code cuda}
 * @param suite the suite, matching {@link Suite#NAME_GRAMMAR}, e.g. {@code stage-c-4-gpu-h200}
 * @param shardIndex the 0-based shard, as a partition id: 0 to {@code shardCount - 1}
 * @param shardCount the shards of the suite, 1 to {@link Suite#MAX_SHARDS}
 * @param tests the test files of the shard in run order (longest first), at least one, each once
 * @param gpus the GPUs the job needs: the suite's GPU budget, 0 for a CPU suite, at most {@link Suite#MAX_GPUS}
 * @param pool the runner pool the job is queued on (the suite's pool), absent when the suite declares none
 *     (the CPU suites of the reference policy); matching {@link Suite#RUNNER_LABEL_GRAMMAR}
 * @param estimatedSeconds the sum of the tests' estimated times, finite and not negative
 * @param timeoutSeconds the policy's timeout rule applied to the estimate, at least 1
 */
public record PlannedJob(String backend, String suite, int shardIndex, int shardCount, List<String> tests,
    int gpus, Optional<String> pool, double estimatedSeconds, long timeoutSeconds) {

  private static final Pattern NAME = Pattern.compile(Suite.NAME_GRAMMAR);
  private static final Pattern LABEL = Pattern.compile(Suite.RUNNER_LABEL_GRAMMAR);

  /**
   * Copies the tests and checks every field.
   *
   * @throws InvalidValueException naming each broken field, e.g. {@code PlannedJob.shardIndex}
   */
  public PlannedJob {
    ValueCheck check = ValueCheck.of("PlannedJob");
    check.require(backend != null && !backend.isEmpty(), "backend", () -> "must not be empty");
    check.require(suite != null && NAME.matcher(suite).matches(), "suite",
        () -> "must match " + Suite.NAME_GRAMMAR + ", got '" + shown(suite) + "'");
    check.atLeast("shardCount", shardCount, 1).atMost("shardCount", shardCount, Suite.MAX_SHARDS);
    check.require(shardIndex >= 0 && shardIndex < shardCount, "shardIndex",
        () -> "must be 0 to " + (shardCount - 1) + " (shard count " + shardCount + "), got " + shardIndex);
    check.require(tests != null && !tests.isEmpty(), "tests", () -> "must list at least one test file");
    if (tests != null) {
      HashSet<String> seen = new HashSet<>();
      for (int i = 0; i < tests.size(); i++) {
        String file = tests.get(i);
        int at = i;
        check.require(file != null && !file.isEmpty(), "tests[" + at + "]", () -> "must be a test file path");
        check.require(file == null || seen.add(file), "tests[" + at + "]",
            () -> "lists " + file + " twice; expected each test file once");
      }
    }
    check.atLeast("gpus", gpus, 0).atMost("gpus", gpus, Suite.MAX_GPUS);
    check.require(pool != null, "pool", () -> "must not be null; use Optional.empty() for no pool");
    if (pool != null) {
      pool.ifPresent(p -> check.require(LABEL.matcher(p).matches(), "pool",
          () -> "must match " + Suite.RUNNER_LABEL_GRAMMAR + ", got '" + shown(p) + "'"));
    }
    check.require(Double.isFinite(estimatedSeconds) && estimatedSeconds >= 0, "estimatedSeconds",
        () -> "must be a finite number of seconds, at least 0; got " + estimatedSeconds);
    check.atLeast("timeoutSeconds", timeoutSeconds, 1);
    check.done();
    tests = List.copyOf(tests);
  }

  /**
   * Whether the suite is split into more than one shard.
   *
   * @return true when {@link #shardCount()} is above 1
   */
  public boolean sharded() {
    return shardCount > 1;
  }

  private static String shown(String text) {
    if (text == null) {
      return "null";
    }
    return text.length() > 80 ? text.substring(0, 80) + "..." : text;
  }
}

package dev.cipolicy.benchmarks;

import dev.cipolicy.api.policy.ScheduleRule;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of loading and checking a policy whose schedule table is at its limit ({@link ScheduleRule#MAX_SCHEDULES}
 * schedules), all firing at the same minute of the day on distinct days of the year, so that the overlap proof
 * has to compare every pair; the pairwise search this proof replaced took seconds on such a table.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 10)
@Fork(1)
public class ScheduleTableBenchmark {
  private final String policy = table();

  private static String table() {
    StringBuilder sb = new StringBuilder("name: full-table\ncadences:\n  nightly: {admit_nightly_tests: true,"
        + " bypass_fastfail: true, write_baseline: true}\nevents:\n  schedule: {source: schedule_table}\n"
        + "schedules:\n");
    for (int i = 0; i < ScheduleRule.MAX_SCHEDULES; i++) {
      sb.append("  - {cron: \"0 15 ").append(i % 28 + 1).append(' ').append(i / 28 % 12 + 1)
          .append(" *\", cadence: nightly}\n");
    }
    return sb.toString();
  }

  /**
   * Loads and checks the full table, overlap proof included.
   *
   * @return the checked policy
   */
  @Benchmark
  public LoadedPolicy loadFullScheduleTable() {
    return PolicyLoader.load("full-table.yaml", policy);
  }
}

package dev.cipolicy.benchmarks;

import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.core.SuiteRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of longest-processing-time sharding: planning one shard of 10,000 tests split into 1,000 shards,
 * with {@link SuiteRegistry#shard} (a heap of the used shards' loads) against {@link #linearScanBaseline},
 * the previous implementation, which scanned every shard for every test (tests × shards).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ShardingBenchmark {
  /** The number of tests. */
  @Param("10000")
  public int tests;

  /** The number of shards. */
  @Param("1000")
  public int shards;

  private List<Registration> registrations = List.of();

  /** Generates the tests from a fixed seed: estimates from 1 s to 2 h, with many ties. */
  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(13);
    List<Registration> out = new ArrayList<>();
    for (int i = 0; i < tests; i++) {
      out.add(Registration.builder().file("tests/e2e/test_" + i + ".py").backend("cuda").suite("stage")
          .estTimeSeconds(random.nextInt(1, 7200)).addLabels("x").build());
    }
    registrations = List.copyOf(out);
  }

  /**
   * The current implementation, for the last shard.
   *
   * @return the shard's tests
   */
  @Benchmark
  public List<Registration> heap() {
    return SuiteRegistry.shard(registrations, shards - 1, shards);
  }

  /**
   * The baseline, for the last shard.
   *
   * @return the shard's tests
   */
  @Benchmark
  public List<Registration> linearScan() {
    return linearScanBaseline(registrations, shards - 1, shards);
  }

  /**
   * The previous sharding, copied verbatim as the baseline: for each test in LPT order, scan every
   * shard's total for the smallest (ties to the lowest index). O(tests × shards) time, O(shards) memory
   * however few tests there are.
   *
   * @param tests the tests
   * @param rank the shard
   * @param size the number of shards
   * @return the shard's tests
   */
  public static List<Registration> linearScanBaseline(List<Registration> tests, int rank, int size) {
    if (size <= 0 || rank < 0 || rank >= size || tests.isEmpty()) {
      return List.of();
    }
    List<Registration> sorted = new ArrayList<>(tests);
    sorted.sort(Comparator.comparingDouble(Registration::estTimeSeconds).reversed()
        .thenComparing(Registration::file));
    double[] totals = new double[size];
    List<Registration> mine = new ArrayList<>();
    for (Registration r : sorted) {
      int best = 0;
      for (int i = 1; i < size; i++) {
        if (totals[i] < totals[best]) {
          best = i;
        }
      }
      totals[best] += r.estTimeSeconds();
      if (best == rank) {
        mine.add(r);
      }
    }
    return List.copyOf(mine);
  }
}

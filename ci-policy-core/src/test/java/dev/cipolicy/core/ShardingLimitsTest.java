package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.api.suite.SuiteRunPlan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** Sharding: the same assignment as the linear scan it replaced, at a cost independent of the shard count. */
class ShardingLimitsTest {
  /** The previous implementation, kept as the reference: a linear scan of every shard per test. */
  static List<Registration> linearScanShard(List<Registration> tests, int rank, int size) {
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

  private static Gen<List<Registration>> tests() {
    // Many zero and equal estimates: the tie-breaks are where a faster algorithm could differ.
    return lists().of(integers().between(0, 6).mix(integers().between(0, 5000), 30)).ofSizeBetween(0, 60)
        .map(ests -> {
          List<Registration> out = new ArrayList<>();
          for (int i = 0; i < ests.size(); i++) {
            out.add(Registration.builder().file("tests/e2e/test_" + i + ".py").backend("cuda")
                .suite("stage-c-4-gpu-h200").estTimeSeconds(ests.get(i) / 2.0).addLabels("fsdp").build());
          }
          return out;
        });
  }

  @Test
  void theAssignmentIsTheLinearScansOneForEveryShardCount() {
    qt().withExamples(300).forAll(tests(), integers().between(1, 80)).checkAssert((tests, size) -> {
      for (int rank = 0; rank < size; rank++) {
        assertThat(SuiteRegistry.shard(tests, rank, size)).isEqualTo(linearScanShard(tests, rank, size));
      }
    });
  }

  @Test
  void aHugeShardCountCostsNothing() {
    List<Registration> tests = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      tests.add(Registration.builder().file("tests/e2e/test_" + i + ".py").backend("cuda").suite("s")
          .estTimeSeconds(i % 13).addLabels("fsdp").build());
    }
    long t0 = System.nanoTime();
    assertThat(SuiteRegistry.shard(tests, Integer.MAX_VALUE - 1, Integer.MAX_VALUE)).isEmpty();
    assertThat(SuiteRegistry.shard(tests, 0, Integer.MAX_VALUE)).hasSize(1);
    assertThat(System.nanoTime() - t0).as("generous bound (it ran out of memory)").isLessThan(10_000_000_000L);
  }

  @Test
  void planRejectsAPartitionSizeAboveTheMaximum() {
    SuiteRegistry registry = ReferencePolicy.registry();
    RunPolicy run = ReferencePolicy.resolver().resolveCadence("regular", List.of());
    assertThatThrownBy(() -> registry.plan("cuda", "stage-c-4-gpu-h200", run, false,
        Optional.of(new SuiteRunPlan.Shard(0, Integer.MAX_VALUE))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Invalid partition size 2147483647; expected at most 1000 shards");
    assertThat(registry.plan("cuda", "stage-c-4-gpu-h200", run, false,
        Optional.of(new SuiteRunPlan.Shard(999, SuiteRegistry.MAX_SHARDS))).enabled()).isEmpty();
  }

  @Test
  void aSuiteDeclaresAtMostTheMaximumShards() {
    assertThatThrownBy(() -> Suite.builder().name("s").shards(Suite.MAX_SHARDS + 1).build())
        .isInstanceOf(InvalidValueException.class).hasMessageContaining("shards").hasMessageContaining("at most 1000");
  }
}

package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.suite.Registration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Properties of sharding and selection. */
class SuiteRegistryProperties {
  private static Gen<List<Registration>> tests() {
    return lists().of(integers().between(0, 5000)).ofSizeBetween(0, 40).map(ests -> {
      List<Registration> out = new ArrayList<>();
      for (int i = 0; i < ests.size(); i++) {
        out.add(Registration.builder().file("tests/e2e/test_" + i + ".py").backend("cuda").suite("stage-c-4-gpu-h200")
            .estTimeSeconds(ests.get(i)).addLabels("fsdp").build());
      }
      return out;
    });
  }

  @Test
  void everyTestLandsInExactlyOneShardAndShardsAreBalanced() {
    qt().forAll(tests(), integers().between(1, 8)).checkAssert((tests, size) -> {
      Map<String, Integer> seen = new HashMap<>();
      double[] totals = new double[size];
      for (int rank = 0; rank < size; rank++) {
        for (Registration r : SuiteRegistry.shard(tests, rank, size)) {
          assertThat(seen.put(r.file(), rank)).as("%s in two shards", r.file()).isNull();
          totals[rank] += r.estTimeSeconds();
        }
      }
      assertThat(seen).hasSize(tests.size());
      double max = tests.stream().mapToDouble(Registration::estTimeSeconds).max().orElse(0);
      double hi = java.util.Arrays.stream(totals).max().orElse(0);
      double lo = java.util.Arrays.stream(totals).min().orElse(0);
      assertThat(hi - lo).isLessThanOrEqualTo(max);
    });
  }

  @Test
  void shardingIgnoresInputOrder() {
    qt().forAll(tests(), integers().between(1, 5)).checkAssert((tests, size) -> {
      List<Registration> reversed = new ArrayList<>(tests);
      java.util.Collections.reverse(reversed);
      for (int rank = 0; rank < size; rank++) {
        assertThat(SuiteRegistry.shard(reversed, rank, size)).isEqualTo(SuiteRegistry.shard(tests, rank, size));
      }
    });
  }

  @Test
  void selectionIsDeterministicAndRespectsThePolicy() {
    SuiteRegistry registry = ReferencePolicy.registry();
    PolicyResolver resolver = ReferencePolicy.resolver();
    List<String> labels = new ArrayList<>();
    ReferencePolicy.KNOWN.forEach(l -> labels.add("run-ci-" + l));
    labels.addAll(List.of("run-ci-all", "run-ci-image", "bypass-fastfail"));
    Gen<List<String>> raw = lists().of(Generate.pick(labels)).ofSizeBetween(0, 4);
    Gen<String> cadence = Generate.pick(List.of("regular", "nightly", "weekly", "release"));
    Gen<String> suite = Generate.pick(List.of("stage-b-2-gpu-h200", "stage-c-8-gpu-h100", "stage-c-8-gpu-h200",
        "stage-c-4-gpu-h200", "stage-c-2-gpu-h200", "stage-c-8-gpu-b200"));
    qt().forAll(cadence, raw, suite, Generate.booleans()).checkAssert((c, r, s, all) -> {
      RunPolicy p = resolver.resolveCadence(c, r);
      SuiteRegistry.Selection a = registry.select("cuda", s, p, all);
      assertThat(registry.select("cuda", s, p, all)).isEqualTo(a);
      for (Registration reg : a.enabled()) {
        assertThat(reg.disabled()).isEmpty();
        assertThat(reg.nightly() && !p.admitNightlyTests()).isFalse();
        assertThat(all || reg.labels().stream().anyMatch(p.includeLabels()::contains)).isTrue();
      }
    });
  }
}

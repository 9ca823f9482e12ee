package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.Registration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Properties of {@link SuitePlanner} over random registrations of the reference policy's suites, random
 * cadences, labels and skipped stages: every selected test of a planned suite lands in exactly one planned
 * job, and every planned job carries its suite's budget, pool, shard count and the policy's timeout.
 */
class SuitePlannerProperties {
  private static final PolicyResolver RESOLVER = ReferencePolicy.resolver();
  private static final List<String[]> SUITES = new ArrayList<>();
  private static final Map<String, Suite> BY_NAME = new HashMap<>();

  static {
    for (Backend b : RESOLVER.policy().backends()) {
      for (Suite s : b.suites()) {
        SUITES.add(new String[] {b.name(), s.name()});
        BY_NAME.put(s.name(), s);
      }
    }
  }

  private record Case(List<Registration> registrations, RunPolicy run, boolean matchAll, List<String> skipped) {}

  /** One registration but its file: where, how long, which labels, and 0 to 9 (even: nightly; 3: disabled). */
  private record Entry(String[] where, int est, List<String> labels, int flags) {}

  private static Gen<List<Registration>> registrations() {
    Gen<List<String>> labels = lists().of(Generate.pick(ReferencePolicy.KNOWN)).ofSizeBetween(1, 2)
        .map(l -> List.copyOf(new TreeSet<>(l)));
    Gen<Entry> entry = Generate.pick(SUITES).zip(integers().between(0, 6000), labels, integers().between(0, 9),
        Entry::new);
    return lists().of(entry).ofSizeBetween(0, 30).map(entries -> {
      List<Registration> out = new ArrayList<>();
      for (int i = 0; i < entries.size(); i++) {
        Entry e = entries.get(i);
        Registration.Builder b = Registration.builder().file("tests/e2e/test_" + (i % 12) + ".py")
            .backend(e.where()[0]).suite(e.where()[1]).estTimeSeconds(e.est()).nightly(e.flags() % 2 == 0)
            .addAllLabels(e.labels());
        if (e.flags() == 3) {
          b.disabled("flaky");
        }
        if (out.stream().noneMatch(r -> r.file().equals(b.build().file()) && r.suite().equals(e.where()[1]))) {
          out.add(b.build());
        }
      }
      return out;
    });
  }

  private static Gen<Case> cases() {
    List<String> raw = new ArrayList<>();
    ReferencePolicy.KNOWN.forEach(l -> raw.add("run-ci-" + l));
    raw.addAll(List.of("run-ci-all", "run-ci-image"));
    Gen<RunPolicy> run = Generate.pick(List.of("regular", "nightly", "weekly", "release"))
        .zip(lists().of(Generate.pick(raw)).ofSizeBetween(0, 3), RESOLVER::resolveCadence);
    Gen<List<String>> skipped = lists().of(Generate.pick(new ArrayList<>(BY_NAME.keySet()))).ofSizeBetween(0, 3)
        .map(l -> List.copyOf(new TreeSet<>(l)));
    return registrations().zip(run, Generate.booleans(), skipped, Case::new);
  }

  @Test
  void everySelectedTestLandsInExactlyOneJobWithItsSuitesBudgetPoolAndTimeout() {
    qt().forAll(cases()).checkAssert(c -> {
      SuiteRegistry registry = SuiteRegistry.of(RESOLVER, c.registrations());
      StageSelection stages = new StageSelection(c.skipped(), List.of(), Optional.empty(),
          new Explanation("random", List.of(), List.of()));
      List<PlannedJob> jobs = SuitePlanner.of(registry).plan(c.run(), c.matchAll(), stages);
      Map<String, String> jobOf = new HashMap<>();
      for (PlannedJob j : jobs) {
        Suite suite = BY_NAME.get(j.suite());
        assertThat(j.gpus()).isEqualTo(suite.gpuBudget());
        assertThat(j.pool()).isEqualTo(suite.pool());
        assertThat(j.shardCount()).isEqualTo(suite.shards());
        assertThat(j.timeoutSeconds()).isEqualTo(RESOLVER.policy().timeouts().timeoutFor(j.estimatedSeconds()));
        assertThat(c.skipped()).doesNotContain(j.suite());
        double sum = 0;
        for (String f : j.tests()) {
          String key = j.backend() + "/" + j.suite() + "/" + f;
          assertThat(jobOf.put(key, j.suite() + "#" + j.shardIndex())).as("%s in two jobs", key).isNull();
          sum += registry.registrationsOf(f).stream().filter(r -> r.backend().equals(j.backend())
              && r.suite().equals(j.suite())).findFirst().orElseThrow().estTimeSeconds();
        }
        assertThat(j.estimatedSeconds()).isEqualTo(sum);
      }
      Set<String> expected = new TreeSet<>();
      for (String[] s : SUITES) {
        if (c.skipped().contains(s[1]) || (BY_NAME.get(s[1]).externallyScheduled() && !c.run().admitNightlyTests())) {
          continue;
        }
        registry.select(s[0], s[1], c.run(), c.matchAll()).enabled()
            .forEach(r -> expected.add(s[0] + "/" + s[1] + "/" + r.file()));
      }
      assertThat(new TreeSet<>(jobOf.keySet())).isEqualTo(expected);
      assertThat(SuitePlanner.of(registry).plan(c.run(), c.matchAll(), stages)).isEqualTo(jobs);
    });
  }
}

package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.Registration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Invariants of stage selection for generated label sets and diffs. */
class StageSelectorProperties {
  private static final SuiteRegistry REGISTRY = ReferencePolicy.registry();
  private static final StageSelector SELECTOR = StageSelector.of(REGISTRY);
  private static final PolicyResolver RESOLVER = ReferencePolicy.resolver();

  private static Gen<List<String>> labels() {
    List<String> pool = new ArrayList<>();
    ReferencePolicy.KNOWN.forEach(l -> pool.add("run-ci-" + l));
    pool.addAll(List.of("run-ci-all", "run-ci-image", "bypass-fastfail", "nightly"));
    return lists().of(Generate.pick(pool)).ofSizeBetween(0, 3);
  }

  private static Gen<List<String>> paths() {
    List<String> pool = new ArrayList<>();
    REGISTRY.registrations().forEach(r -> pool.add(r.file()));
    pool.addAll(List.of("docs/a.md", "README.md", "miles/core.py", "tests/e2e/test_gone.py", ".pre-commit-config.yaml",
        "scripts/tools/sync_example_docs.py", "examples/x/y.mdx", "setup.py"));
    return lists().of(Generate.pick(pool)).ofSizeBetween(1, 5);
  }

  private static byte[] encode(List<String> paths) {
    List<String> fields = new ArrayList<>();
    for (String p : paths) {
      fields.add("M");
      fields.add(p);
    }
    return StageSelectorTest.diff(fields.toArray(String[]::new));
  }

  private static RunPolicy run(List<String> raw) {
    return RESOLVER.resolveCadence(raw.contains("nightly") ? "nightly" : "regular", raw);
  }

  @Test
  void aStageWithAChangedMatchingTestIsNeverSkipped() {
    qt().forAll(labels(), paths()).checkAssert((raw, paths) -> {
      RunPolicy run = run(raw);
      StageSelection s = SELECTOR.select(StageSelectorTest.pullRequest(run), Optional.of(encode(paths)));
      for (String p : paths) {
        for (Registration r : REGISTRY.registrationsOf(p)) {
          if (r.disabled().isEmpty() && REGISTRY.matches(r, run, false)
              && ReferencePolicy.loaded().policy().prStages().contains(r.suite())) {
            assertThat(s.skippedStages()).as("%s changed", p).doesNotContain(r.suite());
          }
        }
      }
    });
  }

  @Test
  void aListOfPathsDecidesExactlyAsTheDiffBytesOfThesePaths() {
    List<String> pool = new ArrayList<>();
    REGISTRY.registrations().forEach(r -> pool.add(r.file()));
    pool.addAll(List.of("docs/a.md", "miles/core.py", "a\nb.py", "d\u00e9j\u00e0/vu.md", " ", "tests/e2e/test_gone.py"));
    qt().forAll(labels(), lists().of(Generate.pick(pool)).ofSizeBetween(0, 6), integers().between(0, 1))
        .checkAssert((raw, paths, pullRequest) -> {
          RunPolicy run = run(raw);
          TriggerResolution resolution = pullRequest == 1 ? StageSelectorTest.pullRequest(run)
              : StageSelectorTest.resolution(TriggerResolution.Source.SCHEDULE_TABLE, run);
          byte[] bytes = paths.isEmpty() ? new byte[0] : encode(paths);
          assertThat(SELECTOR.selectPaths(resolution, paths)).isEqualTo(SELECTOR.select(resolution, Optional.of(bytes)));
        });
  }

  @Test
  void anUnusableDiffNeverSkipsAnything() {
    qt().forAll(labels(), paths(), integers().between(0, 3)).checkAssert((raw, paths, breakage) -> {
      byte[] ok = encode(paths);
      byte[] bad = switch (breakage) {
        case 0 -> java.util.Arrays.copyOf(ok, ok.length - 1);          // not NUL-terminated
        case 1 -> new byte[0];                                          // empty
        case 2 -> StageSelectorTest.diff("X1", paths.get(0));          // bad status
        default -> concat(ok, new byte[] {(byte) 0xff, 0});            // not UTF-8
      };
      StageSelection s = SELECTOR.select(StageSelectorTest.pullRequest(run(raw)), Optional.of(bad));
      assertThat(s.skippedStages()).isEmpty();
      assertThat(s.failOpen()).isPresent();
    });
  }

  @Test
  void selectionIsDeterministic() {
    qt().forAll(labels(), paths()).checkAssert((raw, paths) -> {
      RunPolicy run = run(raw);
      assertThat(SELECTOR.select(StageSelectorTest.pullRequest(run), Optional.of(encode(paths))))
          .isEqualTo(SELECTOR.select(StageSelectorTest.pullRequest(run), Optional.of(encode(paths))));
    });
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}

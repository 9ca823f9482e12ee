package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.policy.FileRunRules;
import dev.cipolicy.api.suite.FileRunDecision;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.core.load.RegistrationLoader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A policy that declares nothing of the reference project gets neutral defaults, not the reference ones. */
class NeutralDefaultsTest {
  private static final String POLICY = """
      name: small
      cadences:
        regular: {admit_nightly_tests: false, bypass_fastfail: false, write_baseline: false}
      backends:
        linux:
          suites:
            unit-tests: {github_hosted: true}
        macos:
          suites:
            integration: {github_hosted: true}
      """;

  private static final String REGISTRATIONS = """
      - {file: tests/unit/parser_spec.rb, backend: linux, suite: unit-tests, est_time: 5}
      - {file: tests/it/api_spec.rb, backend: macos, suite: integration, est_time: 50}
      """;

  @Test
  void theFileRunDefaultsAreNeutral() {
    FileRunRules rules = FileRunRules.defaults();
    assertThat(rules.testDirectory() + " " + rules.testRoots() + " '" + rules.filePrefix() + "' '"
        + rules.fileSuffix() + "' " + rules.backends()).isEqualTo("tests [] '' '' []");
  }

  @Test
  void aRerunNamesAnyFileUnderTestsOnAnyBackend() {
    LoadedPolicy loaded = PolicyLoader.load("small.yaml", POLICY);
    FileRunPlanner planner = FileRunPlanner.of(RegistrationLoader.load("r.yaml", REGISTRATIONS, loaded.resolver()));
    assertThat(planner.parseComment("/rerun-test tests/it/api_spec.rb")).contains("tests/it/api_spec.rb");
    assertThat(planner.parseComment("/rerun-test src/it/api_spec.rb")).isEmpty();
    FileRunDecision macos = planner.planFile("tests/it/api_spec.rb", Optional.empty(), Optional.of(3L));
    assertThat(macos.plan().orElseThrow().suite()).isEqualTo("integration");
    FileRunDecision usage = planner.decideComment("/rerun-test ../etc/passwd",
        dev.cipolicy.api.suite.Permission.WRITE, 3, Optional.empty());
    assertThat(usage.check() + ": " + usage.message()).isEqualTo("comment: usage: /rerun-test tests/.../<name> (one"
        + " registered test file, nothing else)");
  }
}

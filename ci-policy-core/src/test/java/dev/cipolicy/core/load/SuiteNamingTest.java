package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.policy.SuiteNaming;
import dev.cipolicy.core.ReferencePolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A policy's own suite naming rule: names match it, and its named groups agree with the suite's fields. */
class SuiteNamingTest {
  private static final String BASE = """
      name: mini
      labels:
        a: first
      cadences:
        regular: {admit_nightly_tests: false, bypass_fastfail: false, write_baseline: false}
      events:
        pull_request: {source: pull_request_labels, cadence: regular}
      """;

  private static final String STAGES = """
      suite_naming:
        pattern: "stage-(?<tier>[abc])-(?:cpu|(?<gpus>[1-9][0-9]*)-gpu-(?<hardware>[a-z0-9]+))"
        description: stage-<tier>-cpu or stage-<tier>-<gpus>-gpu-<hardware>
      """;

  private static InvalidPolicyException fail(String yaml) {
    try {
      PolicyLoader.load("bad.yaml", yaml);
    } catch (InvalidPolicyException e) {
      return e;
    }
    throw new AssertionError("expected the policy to be rejected:\n" + yaml);
  }

  @Test
  void theReferencePolicyDeclaresItsStageGrammarAsANamingRule() {
    SuiteNaming naming = ReferencePolicy.loaded().policy().suiteNaming().orElseThrow();
    assertThat(naming.groups()).containsExactly("tier", "gpus", "hardware");
    assertThat(ReferencePolicy.loaded().policy().backends().get(1).suites())
        .extracting(s -> s.name() + "=" + s.gpus() + "/" + s.hardware().orElseThrow() + "/" + s.pool().orElseThrow()
            + "/" + s.gpuBudget())
        .contains("stage-c-4-gpu-h200=4/h200/h200/4", "stage-c-8-gpu-b200=8/b200/b200/8");
  }

  @Test
  void theReferencePolicyDeclaresItsOwnProjectChoices() {
    var p = ReferencePolicy.loaded().policy();
    assertThat(p.retry()).isEqualTo(dev.cipolicy.api.policy.RetryRules.defaults());
    assertThat(p.fileRun().command() + " " + p.fileRun().testDirectory() + " " + p.fileRun().testRoots() + " "
        + p.fileRun().filePrefix() + " " + p.fileRun().fileSuffix() + " " + p.fileRun().backends())
        .isEqualTo("/rerun-test tests [e2e, fast, fast-gpu, ci] test_ .py [cpu, cuda]");
    assertThat(p.labelPrefix()).isEqualTo("run-ci-");
  }

  @Test
  void withoutARuleAnyShellSafeNameIsASuiteName() {
    PolicyLoader.load("ok.yaml", BASE + "backends:\n  cpu:\n    suites:\n      unit-tests: {github_hosted: true}\n"
        + "      integration: {github_hosted: true}\n");
  }

  @Test
  void everyNameMustMatchTheRule() {
    String yaml = BASE + STAGES + "backends:\n  cpu:\n    suites:\n      unit-tests: {github_hosted: true}\n"
        + "      stage-a-cpu: {github_hosted: true}\n";
    assertThat(fail(yaml).problems()).extracting(PolicyProblem::toString).containsExactly(
        "bad.yaml:14:7: backends.cpu.suites.unit-tests: suite name 'unit-tests' does not follow the policy's suite"
            + " naming rule stage-<tier>-cpu or stage-<tier>-<gpus>-gpu-<hardware>"
            + " (stage-(?<tier>[abc])-(?:cpu|(?<gpus>[1-9][0-9]*)-gpu-(?<hardware>[a-z0-9]+)))");
  }

  @Test
  void theNamedGroupsMustAgreeWithTheFields() {
    String yaml = BASE + STAGES + "backends:\n  cpu:\n    suites:\n      stage-a-cpu: {github_hosted: true}\n"
        + "  cuda:\n    gpu: true\n    suites:\n"
        + "      stage-c-4-gpu-h200: {gpus: 8, hardware: h100, runner_labels: [h100]}\n"
        + "      stage-c-2-gpu-b200: {gpus: 2, runner_labels: [gpu]}\n";
    assertThat(fail(yaml).problems()).extracting(PolicyProblem::toString).containsExactly(
        "bad.yaml:18:34: backends.cuda.suites.stage-c-4-gpu-h200.gpus: suite 'stage-c-4-gpu-h200' declares gpus: 8"
            + " but its name says 4 (suite_naming group 'gpus')",
        "bad.yaml:18:47: backends.cuda.suites.stage-c-4-gpu-h200.hardware: suite 'stage-c-4-gpu-h200' declares"
            + " hardware: h100 but its name says 'h200' (suite_naming group 'hardware')",
        "bad.yaml:19:7: backends.cuda.suites.stage-c-2-gpu-b200.hardware: suite 'stage-c-2-gpu-b200' declares no"
            + " hardware but its name says 'b200' (suite_naming group 'hardware')");
  }

  @Test
  void aNameWhoseGpusGroupDidNotMatchBelongsToACpuSuite() {
    String yaml = BASE + "suite_naming: {pattern: \"(?:cpu|gpu(?<gpus>[0-9]))-.*\"}\n"
        + "backends:\n  gpu:\n    gpu: true\n    suites:\n      cpu-e2e: {gpus: 2, runner_labels: [x]}\n";
    assertThat(fail(yaml).problems()).extracting(PolicyProblem::message).containsExactly(
        "suite 'cpu-e2e' declares gpus: 2 but its name says it is a CPU suite (the suite_naming group 'gpus' did not"
            + " match)");
  }

  @Test
  void aBadPatternIsALocatedProblem() {
    assertThat(fail(BASE + "suite_naming: {pattern: \"stage-(\"}\n").problems()).extracting(PolicyProblem::toString)
        .containsExactly("bad.yaml:8:25: suite_naming.pattern: not RE2 syntax at index 0: missing closing )"
            + " (missing closing ): 'stage-(')");
    assertThat(fail(BASE + "suite_naming: {pattern: \"(?<gpu>[0-9]+)\"}\n").problems())
        .extracting(PolicyProblem::message).containsExactly("named group 'gpu' is not one of [gpus, hardware, tier]");
    assertThat(fail(BASE + "suite_naming: {pattern: \"" + "a".repeat(SuiteNaming.MAX_PATTERN_LENGTH + 1) + "\"}\n")
        .problems()).extracting(PolicyProblem::message).containsExactly("must be at most 512, got 513");
    assertThat(fail(BASE + "suite_naming: {description: x}\n").problems()).extracting(PolicyProblem::toString)
        .containsExactly("bad.yaml:8:15: suite_naming: missing required field 'pattern'");
  }

  @Test
  void aBacktrackingPatternIsMatchedInLinearTime() {
    // java.util.regex backtracks on these for ever; RE2 answers at once: the name does not follow the rule
    String name = "a".repeat(60) + "-";
    String yaml = BASE + "suite_naming: {pattern: \"" + "(.*a)".repeat(12) + "\"}\n"
        + "backends:\n  cpu:\n    suites:\n      " + name + ": {github_hosted: true}\n";
    InvalidPolicyException e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> fail(yaml));
    assertThat(e.problems()).extracting(PolicyProblem::toString).containsExactly(
        "bad.yaml:12:7: backends.cpu.suites." + name + ": suite name '" + name + "' does not follow the policy's"
            + " suite naming rule " + "(.*a)".repeat(12));
  }

  @Test
  void concatenatedNullableAlternationsAreMatchedInLinearTime() {
    String pattern = "(?:a?|b?)".repeat(50) + "c";
    SuiteNaming naming = SuiteNaming.builder().pattern(pattern).build();
    String name = "ab".repeat(31) + "d";
    assertThat(assertTimeoutPreemptively(Duration.ofSeconds(5), () -> naming.matchWhole(name))).isEmpty();
    assertThat(naming.matchWhole("ab".repeat(25) + "c")).isPresent();
    InvalidPolicyException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> fail(BASE
        + "suite_naming: {pattern: \"" + pattern + "\"}\n"
        + "backends:\n  cpu:\n    suites:\n      " + name + ": {github_hosted: true}\n"));
    assertThat(e.problems()).extracting(PolicyProblem::message).containsExactly("suite name '" + name
        + "' does not follow the policy's suite naming rule " + pattern);
  }

  private static final String REFERENCE =
      "(?:nightly-)?stage-(?<tier>[abc])-(?:cpu|(?<gpus>[1-9][0-9]{0,2})-gpu-(?<hardware>[a-z0-9]+))";

  @Test
  void aCountAboveTheLimitIsRejectedWhenTheValueIsBuilt() {
    for (String pattern : List.of("(?:(?:^){2147483647}){2147483647}" + REFERENCE,
        "(?:(?=)){2000000000}" + REFERENCE)) {
      InvalidValueException e = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> catchThrowableOfType(
          InvalidValueException.class, () -> SuiteNaming.builder().pattern(pattern).build()));
      assertThat(e).as(pattern).isNotNull();
      assertThat(e.getMessage()).matches("SuiteNaming\\.pattern: the counted repetition \\{[0-9]+\\} at index 8"
          + " exceeds 64, the longest name matched");
    }
    assertThat(catchThrowableOfType(InvalidValueException.class,
        () -> SuiteNaming.builder().pattern("a{65}").build()).getMessage()).isEqualTo("SuiteNaming.pattern: the"
        + " counted repetition {65} at index 1 exceeds 64, the longest name matched");
    assertThat(SuiteNaming.builder().pattern(REFERENCE).build().matchWhole("stage-c-4-gpu-h200")).isPresent();
    // a group repeated that matches nothing is harmless to RE2, a literal brace is not a repetition
    assertThat(SuiteNaming.builder().pattern("(?:(?:^){2})stage").build().matchWhole("stage")).isPresent();
    assertThat(SuiteNaming.builder().pattern("[a-z]{2,64}(?:-x)?\\{[}]{1}\\Q{99}\\E").build()
        .matchWhole("ab-x{}{99}")).isPresent();
  }

  @Test
  void javaOnlySyntaxIsOneLocatedProblemSayingWhatIsNotSupported() {
    assertThat(fail(BASE + "suite_naming: {pattern: \"stage-(?<!x)a\"}\n").problems())
        .extracting(PolicyProblem::toString).containsExactly("bad.yaml:8:25: suite_naming.pattern: not RE2 syntax"
            + " at index 6: lookbehind is not supported (invalid named capture: '(?<!x)a')");
    assertThat(fail(BASE + "suite_naming: {pattern: \"(?x)stage # c\"}\n").problems())
        .extracting(PolicyProblem::message).containsExactly("not RE2 syntax at index 0: invalid or unsupported Perl"
            + " syntax (invalid or unsupported Perl syntax: '(?x')");
    assertThat(fail(BASE + "suite_naming: {pattern: \"(s)\\\\1\"}\n").problems())
        .extracting(PolicyProblem::message).containsExactly("not RE2 syntax at index 3: back references are not"
            + " supported (invalid escape sequence: '\\1')");
  }

  @Test
  void aPolicyLoadsWithAZeroWidthRepetitionAsOneLocatedProblemWithinSeconds() {
    InvalidPolicyException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> fail(BASE
        + "suite_naming: {pattern: \"(?:(?=)){2000000000}stage-a-cpu\"}\n"
        + "backends:\n  cpu:\n    suites:\n      stage-a-cpu: {github_hosted: true}\n"));
    assertThat(e.problems()).extracting(PolicyProblem::toString).containsExactly("bad.yaml:8:25: suite_naming.pattern:"
        + " the counted repetition {2000000000} at index 8 exceeds 64, the longest name matched");
  }

  @Test
  void everyMatchOfThePatternIsLinearAJobIdIncluded() {
    SuiteNaming naming = SuiteNaming.builder().pattern(REFERENCE + "|(?:(?:x*)*)*y").build();
    PolicyLoader.load("ok.yaml", BASE + "suite_naming: {pattern: \"" + naming.pattern() + "\"}\n"
        + "backends:\n  cpu:\n    suites:\n      stage-a-cpu: {github_hosted: true}\n");
    String jobId = "x".repeat(40) + "z";
    assertThat(assertTimeoutPreemptively(Duration.ofSeconds(5), () -> naming.matchWhole(jobId))).isEmpty();
    assertThat(naming.matchWhole("x".repeat(40) + "y")).isPresent();
    assertThat(naming.matchWhole("x".repeat(64) + "y")).as("longer than any suite name").isEmpty();
  }
}

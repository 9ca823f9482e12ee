package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.PolicyProblem;
import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.core.ReferencePolicy;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Loading policy documents: the reference policy, YAML/JSON equivalence, and precise errors. */
class PolicyLoaderTest {

  private static final String MINIMAL = """
      name: mini
      labels:
        a: first
        b: second
      cadences:
        regular: {admit_nightly_tests: false, bypass_fastfail: false, write_baseline: false}
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      events:
        schedule: {source: schedule_table}
      schedules:
        - cron: "0 15 * * 0-5"
          cadence: nightly
      """;

  private static InvalidPolicyException fail(String yaml) {
    try {
      PolicyLoader.load("bad.yaml", yaml);
    } catch (InvalidPolicyException e) {
      return e;
    }
    throw new AssertionError("expected the policy to be rejected:\n" + yaml);
  }

  private static PolicyProblem only(InvalidPolicyException e) {
    assertThat(e.problems()).hasSize(1);
    return e.problems().get(0);
  }

  @Nested
  @DisplayName("the reference policy")
  class Reference {
    private final Policy p = ReferencePolicy.loaded().policy();

    @Test
    void declaresEveryValueOfTheSpec() {
      assertThat(p.knownLabels()).containsExactlyElementsOf(ReferencePolicy.KNOWN);
      assertThat(p.cadenceNames()).containsExactly("regular", "nightly", "weekly", "release");
      assertThat(p.schedules()).extracting(s -> s.cron() + "=" + s.cadence())
          .containsExactly("0 15 * * 0-5=nightly", "0 15 * * 6=weekly");
      assertThat(p.containerImageRepository()).contains("radixark/miles");
      assertThat(p.prStages()).containsExactly("stage-b-2-gpu-h200", "stage-c-8-gpu-h100", "stage-c-8-gpu-h200",
          "stage-c-4-gpu-h200", "stage-c-2-gpu-h200", "stage-c-8-gpu-b200", "stage-c-4-gpu-mi350");
      assertThat(p.nonGpuPaths()).contains(".pre-commit-config.yaml", "scripts/tools/sync_example_docs.py",
          "docs/**", "**/*.md", "**/*.mdx");
      assertThat(p.scopes()).extracting(s -> s.name()).containsExactly("all", "nightly", "image");
      assertThat(ReferencePolicy.loaded().warnings()).isEmpty();
    }

    @Test
    void declaresTheSuitesWithRunnerLabelsAndShards() {
      assertThat(p.backends()).extracting(b -> b.name()).containsExactly("cpu", "cuda", "rocm");
      assertThat(p.backends().get(0).suites()).extracting(s -> s.name() + "/" + s.shards())
          .containsExactly("stage-a-cpu/4", "stage-b-cpu/1");
      assertThat(p.backends().get(1).suites()).extracting(s -> s.name() + s.runnerLabels() + s.shards())
          .containsExactly("stage-b-2-gpu-h200[h200, 2gpu]1", "stage-c-8-gpu-h100[h100, 8gpu]2",
              "stage-c-8-gpu-h200[h200, 8gpu]2", "stage-c-4-gpu-h200[h200, 4gpu]3",
              "stage-c-2-gpu-h200[h200, 2gpu]2", "stage-c-8-gpu-b200[b200, 8gpu]1");
      Suite mi350 = p.backends().get(2).suites().get(0);
      assertThat(mi350.name()).isEqualTo("stage-c-4-gpu-mi350");
      assertThat(mi350.runnerLabels()).containsExactly("self-hosted", "amd", "mi350", "4gpu");
      assertThat(p.backends().get(2).suites()).filteredOn(Suite::externallyScheduled)
          .extracting(Suite::name)
          .containsExactly("nightly-stage-c-8-gpu-mi350", "nightly-stage-c-4-gpu-mi350", "nightly-stage-c-2-gpu-mi350");
      assertThat(p.hosts()).filteredOn(h -> h.name().equals("h200-split")).singleElement()
          .satisfies(h -> assertThat(h.partitions()).containsExactly(2, 2, 4));
      assertThat(p.hosts()).filteredOn(h -> h.name().equals("b200-whole")).singleElement()
          .satisfies(h -> assertThat(h.unpartitioned()).isTrue());
    }

    @Test
    void theJsonFormOfTheDocumentLoadsToAnEqualPolicy() throws Exception {
      JsonNode tree = new YAMLMapper().readTree(ReferencePolicy.text());
      String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(tree);
      LoadedPolicy fromJson = PolicyLoader.load("miles.json", json);
      assertThat(fromJson.policy()).isEqualTo(p);
    }
  }

  @Nested
  @DisplayName("syntax errors name file, line and column")
  class Syntax {
    @Test
    void malformedYaml() {
      PolicyProblem pr = only(fail("name: x\nlabels: [a, b\ncadences: {}\n"));
      assertThat(pr.location()).isPresent();
      assertThat(pr.location().get().source()).isEqualTo("bad.yaml");
      assertThat(pr.message()).startsWith("malformed YAML: ");
    }

    @Test
    void aYamlSyntaxErrorCarriesTheParsersProblemAndWhereItIsOnOneLine() {
      PolicyProblem pr = only(fail("name: x\nlabels: [a, b\n"));
      assertThat(pr.message()).startsWith("malformed YAML: expected ',' or ']'")
          .contains("at line 3, column 1")
          .contains("while parsing a flow sequence started at line 2, column 9")
          .doesNotContain("\n");
      assertThat(pr.location()).contains(new SourceLocation("bad.yaml", 3, 1));
    }

    @Test
    void malformedJson() {
      InvalidPolicyException e = null;
      try {
        PolicyLoader.load("bad.json", "{\n  \"name\": \"x\",\n  \"labels\": {\"a\": }\n}");
      } catch (InvalidPolicyException ex) {
        e = ex;
      }
      assertThat(e).isNotNull();
      PolicyProblem pr = only(e);
      assertThat(pr.location()).contains(new SourceLocation("bad.json", 3, 19));
      assertThat(pr.message()).startsWith("malformed JSON: ");
    }

    @Test
    void emptyDocument() {
      assertThat(only(fail("")).message()).isEqualTo("the document is empty; expected a policy mapping");
      assertThat(only(fail("# only a comment\n")).message())
          .isEqualTo("the document is empty; expected a policy mapping");
    }

    @Test
    void rootMustBeAMapping() {
      assertThat(only(fail("- a\n- b\n")).toString()).isEqualTo("bad.yaml:1:1: expected a mapping, found a list");
    }

    @Test
    void duplicateKeys() {
      PolicyProblem pr = only(fail(MINIMAL.replace("  b: second\n", "  b: second\n  a: again\n")));
      assertThat(pr.toString()).isEqualTo("bad.yaml:5:3: duplicate key 'a' (first defined at line 3)");
    }

    @Test
    void multipleDocumentsAreRejected() {
      assertThat(only(fail(MINIMAL + "---\nname: other\n")).message())
          .isEqualTo("unexpected content after the end of the document");
    }

    @Test
    void deepNestingIsRejectedNotAStackOverflow() {
      String deep = "name: x\nlabels: " + "[".repeat(5000) + "]".repeat(5000) + "\n";
      assertThat(only(fail(deep)).message()).contains("malformed YAML");
    }
  }

  @Nested
  @DisplayName("structure errors name the field and what was expected")
  class Structure {
    @Test
    void unknownKey() {
      PolicyProblem pr = only(fail(MINIMAL + "lables: {}\n"));
      assertThat(pr.toString()).startsWith("bad.yaml:13:1: lables: unknown field 'lables'; expected one of [");
    }

    @Test
    void unknownNestedKey() {
      PolicyProblem pr = only(fail(MINIMAL.replace("cadence: nightly", "cadence: nightly\n    cadance: x")));
      assertThat(pr.toString()).isEqualTo(
          "bad.yaml:13:5: schedules[0].cadance: unknown field 'cadance'; expected one of [cadence, cron, description, labels]");
    }

    @Test
    void wrongType() {
      PolicyProblem pr = only(fail(MINIMAL.replace("admit_nightly_tests: false", "admit_nightly_tests: \"no\"")));
      assertThat(pr.path()).isEqualTo("cadences.regular.admit_nightly_tests");
      assertThat(pr.message()).isEqualTo("expected true or false, found a string");
      assertThat(pr.location()).contains(new SourceLocation("bad.yaml", 6, 34));
    }

    @Test
    void numberWhereAStringIsExpected() {
      PolicyProblem pr = only(fail(MINIMAL.replace("\"0 15 * * 0-5\"", "15")));
      assertThat(pr.toString()).isEqualTo("bad.yaml:11:11: schedules[0].cron: expected a string, found an integer (15) (quote it)");
    }

    @Test
    void missingRequiredField() {
      PolicyProblem pr = only(fail(MINIMAL.replace("name: mini\n", "")));
      assertThat(pr.message()).isEqualTo("missing required field 'name'");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
      InvalidPolicyException e = fail(MINIMAL.replace("name: mini", "name: 3").replace("write_baseline: true}",
          "write_baseline: 1}") + "extra: 1\n");
      assertThat(e.problems()).hasSize(3);
      assertThat(e.getMessage()).startsWith("Invalid CI policy (3 problems): ");
    }

    @Test
    void yamlOneOneBooleanWordsAreRejectedNotMisread() {
      PolicyProblem pr = only(fail(MINIMAL.replace("admit_nightly_tests: true", "admit_nightly_tests: yes")));
      assertThat(pr.message()).isEqualTo("expected true or false, found 'yes' (YAML 1.1 reads it as a boolean;"
          + " write true or false)");
    }

    @Test
    void aLabelProblemPointsAtTheLabelName() {
      String yaml = MINIMAL.replace("  b: second\n", "  b: second\n  all: everything\n")
          + "scopes:\n  - name: all\n    when_labels: [run-ci-all]\n";
      assertThat(only(fail(yaml)).location()).contains(new SourceLocation("bad.yaml", 5, 3));
    }

    @Test
    void unknownEventSource() {
      PolicyProblem pr = only(fail(MINIMAL.replace("source: schedule_table", "source: cron")));
      assertThat(pr.message()).isEqualTo(
          "unknown event source 'cron'; expected one of [fixed, pull_request_labels, schedule_table]");
    }

    @Test
    void unsupportedVersion() {
      assertThat(only(fail("policy_version: 2\n" + MINIMAL)).toString())
          .isEqualTo("bad.yaml:1:17: policy_version: unsupported policy_version 2; expected 1");
    }
  }

  @Nested
  @DisplayName("static checks")
  class StaticChecks {
    @Test
    void invalidCron() {
      PolicyProblem pr = only(fail(MINIMAL.replace("0 15 * * 0-5", "61 15 * * 0-5")));
      assertThat(pr.location()).contains(new SourceLocation("bad.yaml", 11, 11));
      assertThat(pr.path()).isEqualTo("schedules[0].cron");
      assertThat(pr.message()).startsWith("invalid cron '61 15 * * 0-5': ");
    }

    @Test
    void cronsOfDifferentCadencesMustNeverShareAMinute() {
      String yaml = MINIMAL.replace("0 15 * * 0-5", "0 15 * * *")
          + "  - cron: \"0 15 * * 6\"\n    cadence: regular\n";
      PolicyProblem pr = only(fail(yaml));
      assertThat(pr.toString()).isEqualTo("bad.yaml:13:11: schedules[1].cron: crons '0 15 * * *' (nightly) and"
          + " '0 15 * * 6' (regular) both fire at 2024-01-06T15:00:00Z; a firing minute must map to exactly one cadence");
    }

    @Test
    void theFirstSharedInstantIsFoundYearsAway() {
      String yaml = MINIMAL.replace("0 15 * * 0-5", "0 12 29 2 *")
          + "  - cron: \"0 12 * * 1\"\n    cadence: regular\n";
      // 29 February falls on a Monday first in 2044: a window of one or four years would miss it.
      assertThat(only(fail(yaml)).message()).contains("both fire at 2044-02-29T12:00:00Z");
    }

    @Test
    void sameCadenceOverlapIsAWarning() {
      LoadedPolicy loaded = PolicyLoader.load("ok.yaml", MINIMAL + "  - cron: \"0 15 * * 1\"\n    cadence: nightly\n");
      assertThat(loaded.warnings()).singleElement().satisfies(w -> {
        assertThat(w.code()).isEqualTo("schedule-overlap");
        assertThat(w.message()).isEqualTo("schedules[1].cron: crons '0 15 * * 0-5' and '0 15 * * 1'"
            + " (both nightly) both fire at 2024-01-01T15:00:00Z, starting two runs");
        assertThat(w.location()).contains(new SourceLocation("ok.yaml", 13, 11));
        assertThat(w.toString()).isEqualTo("schedule-overlap: ok.yaml:13:11: schedules[1].cron: crons '0 15 * * 0-5'"
            + " and '0 15 * * 1' (both nightly) both fire at 2024-01-01T15:00:00Z, starting two runs");
      });
    }

    @Test
    void disjointCronsAreAccepted() {
      LoadedPolicy loaded = PolicyLoader.load("ok.yaml", MINIMAL + "  - cron: \"0 15 * * 6\"\n    cadence: regular\n"
          + "  - cron: \"30 15 * * *\"\n    cadence: regular\n");
      assertThat(loaded.warnings()).isEmpty();
    }

    @Test
    void aCronThatNeverFires() {
      assertThat(only(fail(MINIMAL.replace("0 15 * * 0-5", "0 0 30 2 *"))).message())
          .isEqualTo("cron '0 0 30 2 *' never fires between 2024-01-01T00:00:00Z and 2052-01-01T00:00:00Z");
    }

    @Test
    void aScheduleCannotCarryAWorkflowLabelOfAnotherCadence() {
      String yaml = MINIMAL.replace("cadence: nightly", "cadence: regular\n    labels: [nightly]")
          + "workflow_labels:\n  nightly: {switches_cadence: nightly}\n";
      assertThat(only(fail(yaml)).toString()).isEqualTo("bad.yaml:13:14: schedules[0].labels[0]: The nightly workflow"
          + " label requires cadence='nightly', but this schedule's cadence is 'regular'");
    }

    @Test
    void duplicateCron() {
      assertThat(only(fail(MINIMAL + "  - cron: \"0 15 * * 0-5\"\n    cadence: nightly\n")).message())
          .isEqualTo("cron '0 15 * * 0-5' is already mapped by schedules[0]; each exact cron maps to exactly one cadence");
    }

    @Test
    void scheduleCadenceMustBeDeclared() {
      assertThat(only(fail(MINIMAL.replace("cadence: nightly", "cadence: hourly"))).toString())
          .isEqualTo("bad.yaml:12:14: schedules[0].cadence: unknown cadence 'hourly'; expected one of [nightly, regular]");
    }

    @Test
    void scopeSubtractionsMustReferenceKnownLabels() {
      String yaml = MINIMAL + "scopes:\n  - name: most\n    when_cadences: [nightly]\n    except: [a, zzz]\n";
      assertThat(only(fail(yaml)).toString())
          .isEqualTo("bad.yaml:16:17: scopes[0].except[1]: unknown label 'zzz'; expected one of [a, b]");
    }

    @Test
    void anUnreachableScopeRuleIsAnError() {
      String yaml = MINIMAL + "scopes:\n  - name: all\n    when_labels: [run-ci-all]\n    when_cadences: [nightly]\n"
          + "  - name: nightly-only\n    when_cadences: [nightly]\n";
      assertThat(only(fail(yaml)).message()).isEqualTo("scope rule 'nightly-only' can never match: every label and"
          + " cadence it names is matched by an earlier rule (first match wins)");
    }

    @Test
    void aRuleAfterOneCoveringEveryCadenceIsUnreachable() {
      String yaml = MINIMAL + "scopes:\n  - name: every\n    when_cadences: [regular, nightly]\n"
          + "  - name: image\n    when_labels: [run-ci-image]\n";
      assertThat(only(fail(yaml)).message()).startsWith("scope rule 'image' can never match");
    }

    @Test
    void scheduleLabelsMustNameKnownLabels() {
      String yaml = MINIMAL.replace("cadence: nightly", "cadence: nightly\n    labels: [run-ci-a, run-ci-bogus]");
      assertThat(only(fail(yaml)).toString()).isEqualTo("bad.yaml:13:24: schedules[0].labels[1]: 'run-ci-bogus' names"
          + " no known label or scope label; expected one of [a, b] after the prefix 'run-ci-'");
    }

    @Test
    void aScopeLabelCannotBeADomainLabel() {
      String yaml = MINIMAL.replace("  b: second\n", "  b: second\n  all: everything\n")
          + "scopes:\n  - name: all\n    when_labels: [run-ci-all]\n";
      assertThat(only(fail(yaml)).message())
          .isEqualTo("'all' is a scope label ('run-ci-all') and can never be a domain label");
    }

    @Test
    void labelNamesMustBeShellSafe() {
      assertThat(only(fail(MINIMAL.replace("  b: second", "  \"b c\": second"))).message())
          .startsWith("label 'b c' must match [A-Za-z0-9][A-Za-z0-9_.-]*");
    }

    @Test
    void anyShellSafeSuiteNameIsValidButEverySuiteNeedsARunnerMapping() {
      String yaml = MINIMAL + "backends:\n  cuda:\n    gpu: true\n    suites:\n      gpu-tests:\n"
          + "        gpus: 1\n        runner_labels: [h200]\n      integration: {gpus: 2}\n";
      InvalidPolicyException e = fail(yaml);
      assertThat(e.problems()).extracting(PolicyProblem::toString).containsExactly(
          "bad.yaml:20:7: backends.cuda.suites.integration: suite 'integration' has no runner"
              + " mapping; declare runner_labels or github_hosted: true");
    }

    @Test
    void aSuiteNameMustBeShellSafe() {
      String yaml = MINIMAL + "backends:\n  cpu:\n    suites:\n      \"unit tests;rm\": {github_hosted: true}\n";
      assertThat(only(fail(yaml)).toString()).isEqualTo("bad.yaml:16:7: backends.cpu.suites.unit tests;rm: suite"
          + " name 'unit tests;rm' is not shell-safe; expected 1 to 64 characters matching " + Suite.NAME_GRAMMAR);
    }

    @Test
    void aGpuBackendsSuitesDeclareGpusAndACpuBackendsDoNot() {
      String yaml = MINIMAL + "backends:\n  cpu:\n    suites:\n      lint: {github_hosted: true, gpus: 2}\n"
          + "  cuda:\n    gpu: true\n    suites:\n      e2e: {runner_labels: [gpu]}\n";
      assertThat(fail(yaml).problems()).extracting(PolicyProblem::toString).containsExactly(
          "bad.yaml:16:41: backends.cpu.suites.lint.gpus: suite 'lint' declares gpus: 2 but backend 'cpu' is a"
              + " CPU backend (declare gpu: true on GPU backends, gpus: 0 on CPU suites)",
          "bad.yaml:20:7: backends.cuda.suites.e2e.gpus: suite 'e2e' of GPU backend 'cuda' declares no GPUs;"
              + " declare gpus: <n> (at least 1), or move it to a CPU backend");
    }

    @Test
    void runnerLabelsMustAgreeWithTheSuitesHardwareAndGpus() {
      String yaml = MINIMAL + "backends:\n  cuda:\n    gpu: true\n    suites:\n      big:\n"
          + "        gpus: 4\n        hardware: h200\n        runner_labels: [h100, 8gpu]\n";
      assertThat(fail(yaml).problems()).extracting(PolicyProblem::toString).containsExactly(
          "bad.yaml:20:9: backends.cuda.suites.big.runner_labels: runner labels [h100, 8gpu] do not name the"
              + " hardware 'h200' of suite 'big' (hardware: h200)",
          "bad.yaml:20:9: backends.cuda.suites.big.runner_labels: runner label '8gpu' contradicts the 4 GPUs of"
              + " suite 'big' (gpus: 4)");
    }

    @Test
    void gpuFieldsAreTypedAndBounded() {
      String typed = MINIMAL + "backends:\n  cuda:\n    gpu: true\n    suites:\n      big:\n"
          + "        gpus: four\n        hardware: 200\n        pool: [a]\n        gpu_budget: true\n";
      assertThat(fail(typed).problems()).extracting(PolicyProblem::toString).containsExactly(
          "bad.yaml:18:15: backends.cuda.suites.big.gpus: expected an integer, found a string",
          "bad.yaml:19:19: backends.cuda.suites.big.hardware: expected a string, found an integer (200) (quote it)",
          "bad.yaml:20:15: backends.cuda.suites.big.pool: expected a string, found a list",
          "bad.yaml:21:21: backends.cuda.suites.big.gpu_budget: expected an integer, found a boolean (true)");
      String bounded = MINIMAL + "backends:\n  cuda:\n    gpu: true\n    suites:\n      big:\n"
          + "        gpus: 4\n        gpu_budget: 8\n        pool: \"$(x)\"\n        runner_labels: [4gpu]\n";
      assertThat(fail(bounded).problems()).extracting(PolicyProblem::toString).containsExactly(
          "bad.yaml:19:21: backends.cuda.suites.big.gpu_budget: the GPU budget of a job must be 1 to the suite's"
              + " 4 GPUs, got 8",
          "bad.yaml:20:15: backends.cuda.suites.big.pool: pool '$(x)' is not shell-safe; expected 1 to 64"
              + " characters matching " + Suite.RUNNER_LABEL_GRAMMAR);
    }

    @Test
    void theGpuFieldsAreReadAndDefaulted() {
      String yaml = MINIMAL + "backends:\n  cpu:\n    suites:\n      unit-tests: {github_hosted: true}\n"
          + "  cuda:\n    gpu: true\n    suites:\n      integration:\n        gpus: 8\n        hardware: b200\n"
          + "        pool: blackwell\n        gpu_budget: 2\n        runner_labels: [b200, 8gpu]\n"
          + "      smoke: {gpus: 1, runner_labels: [gpu]}\n";
      Policy p = PolicyLoader.load("ok.yaml", yaml).policy();
      Suite unit = p.backends().get(0).suites().get(0);
      assertThat(unit.gpus() + "/" + unit.gpuBudget() + "/" + unit.hardware() + "/" + unit.pool())
          .isEqualTo("0/0/Optional.empty/Optional.empty");
      Suite integration = p.backends().get(1).suites().get(0);
      assertThat(integration.gpus() + "/" + integration.gpuBudget() + "/" + integration.hardware().orElseThrow()
          + "/" + integration.pool().orElseThrow()).isEqualTo("8/2/b200/blackwell");
      assertThat(p.backends().get(1).suites().get(1).gpuBudget()).isEqualTo(1);
    }

    @Test
    void aPartitionedHostOnlyServesItsPartitionSizes() {
      String yaml = MINIMAL + "hosts:\n  node: {gpus: 8, partitions: [2, 2, 4]}\n"
          + "backends:\n  cuda:\n    gpu: true\n    suites:\n      whole-node:\n"
          + "        gpus: 8\n        runner_labels: [h200, 8gpu]\n        host: node\n";
      assertThat(only(fail(yaml)).message())
          .isEqualTo("suite 'whole-node' needs 8 GPUs (gpus: 8), which host layout 'node' partitioned [2, 2, 4]"
              + " cannot provide");
    }

    @Test
    void aCpuSuiteHasNoHostLayout() {
      String yaml = MINIMAL + "hosts:\n  node: {gpus: 8}\n"
          + "backends:\n  cpu:\n    suites:\n      unit: {github_hosted: true, host: node}\n";
      assertThat(only(fail(yaml)).toString())
          .isEqualTo("bad.yaml:18:41: backends.cpu.suites.unit.host: a CPU suite (gpus: 0) has no host layout");
    }

    @Test
    void partitionsMustSumToTheNode() {
      assertThat(only(fail(MINIMAL + "hosts:\n  node: {gpus: 8, partitions: [2, 2]}\n")).message())
          .isEqualTo("partitions [2, 2] must be positive and sum to 8 GPUs");
    }

    @Test
    void nonGpuPathsMustBeValidGlobs() {
      assertThat(only(fail(MINIMAL + "non_gpu_paths: [\"docs/**\", \"src/[ab\"]\n")).toString())
          .isEqualTo("bad.yaml:13:28: non_gpu_paths[1]: invalid glob 'src/[ab' at position 7: the character class"
              + " opened at position 4 is not closed; expected ']'");
    }

    @Test
    void prStagesMustBeDeclaredSuites() {
      assertThat(only(fail(MINIMAL + "pr_stages: [stage-c-9-gpu-x]\n")).toString())
          .isEqualTo("bad.yaml:13:13: pr_stages[0]: unknown stage 'stage-c-9-gpu-x'; expected one of []");
    }

    @Test
    void eventCadencesMustBeDeclared() {
      assertThat(only(fail(MINIMAL.replace("schedule: {source: schedule_table}",
          "workflow_dispatch: {cadence: daily}"))).message())
          .isEqualTo("unknown cadence 'daily'; expected one of [nightly, regular]");
    }

    @Test
    void checksRunOnPoliciesBuiltInCodeToo() {
      Policy p = PolicyLoader.load("ok.yaml", MINIMAL).policy();
      var schedules = new java.util.ArrayList<>(p.schedules());
      schedules.add(dev.cipolicy.api.policy.ScheduleRule.builder().cron("not a cron").cadence("nightly").build());
      Policy broken = Policy.builder().from(p).schedules(schedules).build();
      assertThatThrownBy(() -> dev.cipolicy.core.PolicyResolver.of(broken))
          .isInstanceOf(InvalidPolicyException.class)
          .satisfies(e -> assertThat(((InvalidPolicyException) e).problems().get(0).location()).isEqualTo(Optional.empty()))
          .hasMessageStartingWith("Invalid CI policy: schedules[1].cron: invalid cron 'not a cron': ");
    }
  }
}

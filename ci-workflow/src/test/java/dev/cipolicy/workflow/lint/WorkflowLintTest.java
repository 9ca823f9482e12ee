package dev.cipolicy.workflow.lint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.load.WorkflowLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The lint's rules on the example workflow sets (a buggy and a fixed variant of a GPU project's two PR
 * workflows) and on variants of the fixed set that break one invariant at a time.
 */
class WorkflowLintTest {
  private static Path examples() {
    Path p = Path.of("../examples");
    return Files.isDirectory(p) ? p : Path.of("../../examples");
  }

  private static String read(String path) {
    try {
      return Files.readString(examples().resolve(path), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final LoadedPolicy MILES = PolicyLoader.load("miles.yaml", read("policies/miles.yaml"));

  private static WorkflowLint lint() {
    return WorkflowLint.of(MILES.policy(), MILES.locator());
  }

  /** The two workflows of a variant, each after an edit of its text. */
  private static List<Workflow> set(String variant, UnaryOperator<String> cuda, UnaryOperator<String> rocm) {
    List<Workflow> out = new ArrayList<>();
    out.add(WorkflowLoader.load("pr-test.yml", cuda.apply(read("workflows/model/" + variant + "/pr-test.yml"))));
    out.add(WorkflowLoader.load("pr-test-rocm.yml",
        rocm.apply(read("workflows/model/" + variant + "/pr-test-rocm.yml"))));
    return out;
  }

  private static List<LintFinding> fixedWith(UnaryOperator<String> cuda) {
    return lint().lint(set("fixed", cuda, UnaryOperator.identity()));
  }

  private static String replaced(String text, String from, String to) {
    assertThat(text).contains(from);
    return text.replace(from, to);
  }

  private static int lineOf(String text, String needle) {
    int at = text.indexOf(needle);
    assertThat(at).as(needle).isNotNegative();
    return (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
  }

  @Test
  void theFixedSetPasses() {
    assertThat(lint().lint(set("fixed", UnaryOperator.identity(), UnaryOperator.identity()))).isEmpty();
  }

  @Test
  void theBuggySetIsFlaggedWithBypassKeepsStagesAtResolveCiImage() {
    List<LintFinding> findings = lint().lint(set("buggy", UnaryOperator.identity(), UnaryOperator.identity()));
    assertThat(findings).extracting(f -> f.rule().id()).containsExactlyInAnyOrder("bypass-keeps-stages",
        "pool-share", "closed-runs-nothing", "cron-table");
    assertThat(findings).allMatch(f -> f.severity() == LintFinding.Severity.ERROR);
    LintFinding bypass = findings.stream().filter(f -> f.rule() == LintRule.BYPASS_KEEPS_STAGES).findFirst()
        .orElseThrow();
    String text = read("workflows/model/buggy/pr-test.yml");
    assertThat(bypass.location()).isEqualTo(new SourceLocation("pr-test.yml", lineOf(text, "  resolve-ci-image:"), 3));
    assertThat(bypass.job()).contains("resolve-ci-image");
    assertThat(bypass.message())
        .contains("fast-fail gate stage-a-cpu failed, resolve-ci-image is skipped")
        .contains("stage-b-2-gpu-h200, stage-c-2-gpu-h200, stage-c-4-gpu-h200, stage-c-8-gpu-h200,"
            + " stage-c-8-gpu-h100, stage-c-8-gpu-b200")
        .contains("schedule '0 15 * * 0-5' (cadence nightly)")
        .contains("implicit success() is false: ancestor stage-a-cpu failed (via docker-build)")
        .contains("!cancelled() && needs.docker-build.result == 'success'");
  }

  @Test
  void aStageWhoseOwnIfHasNoStatusFunctionIsFlaggedAtItsIf() {
    String from = "      ${{ always() && needs.resolve-ci-image.result == 'success'\n"
        + "      && !contains(needs.resolve-ci-policy.outputs.skipped_stages, '\"stage-c-8-gpu-b200\"') }}";
    List<LintFinding> findings = fixedWith(t -> replaced(t, from,
        "      ${{ needs.resolve-ci-image.result == 'success'\n"
            + "      && !contains(needs.resolve-ci-policy.outputs.skipped_stages, '\"stage-c-8-gpu-b200\"') }}"));
    assertThat(findings).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.BYPASS_KEEPS_STAGES);
      assertThat(f.job()).contains("stage-c-8-gpu-b200");
      assertThat(f.message()).contains("stage job stage-c-8-gpu-b200 does not run")
          .contains("its if calls no status function");
    });
  }

  @Test
  void aClosedPullRequestThatRunsAJobIsFlaggedAtTheJobThatStartsIt() {
    List<LintFinding> findings = fixedWith(t -> replaced(t, "    if: github.event.action != 'closed'\n", ""));
    assertThat(findings).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.CLOSED_RUNS_NOTHING);
      assertThat(f.job()).contains("resolve-ci-policy");
      assertThat(f.message()).startsWith("on pull_request closed, job resolve-ci-policy runs");
    });
    // an always() job after the guarded policy job runs on closed too, and is the job to guard
    List<LintFinding> always = fixedWith(t -> replaced(t, "    if: >-\n      ${{ always() && needs.resolve-ci-policy"
        + ".result == 'success'\n      && (needs.stage-a-cpu.result", "    if: >-\n      ${{ always() && (true\n"
        + "      || needs.stage-a-cpu.result"));
    assertThat(always).extracting(f -> f.rule().id() + " " + f.job().orElse(""))
        .contains("closed-runs-nothing docker-build");
  }

  @Test
  void aWorkflowWithPrStagesThatIgnoresClosedIsFlaggedAtItsTrigger() {
    List<LintFinding> findings = lint().lint(set("fixed", UnaryOperator.identity(),
        t -> replaced(t, "types: [opened, synchronize, reopened, labeled, closed]", "types: [opened, synchronize]")));
    assertThat(findings).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.CLOSED_RUNS_NOTHING);
      assertThat(f.location().source()).isEqualTo("pr-test-rocm.yml");
      assertThat(f.message()).contains("does not subscribe to closed");
    });
  }

  @Test
  void aStageJobMustNeedThePolicyJobAndPassItsCadenceAndLabels() {
    List<LintFinding> noNeed = fixedWith(t -> replaced(t, "  stage-b-cpu:\n    needs: resolve-ci-policy\n",
        "  stage-b-cpu:\n    needs: []\n"));
    assertThat(noNeed).filteredOn(f -> f.rule() == LintRule.STAGE_CONSUMES_POLICY).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("stage-b-cpu (suite stage-b-cpu) does not need the policy"
            + " job resolve-ci-policy"));
    List<LintFinding> noCadence = fixedWith(t -> replaced(t, "      - run: ci/run-suite.sh stage-b-cpu --cadence"
        + " \"$CADENCE\" --labels \"$LABELS\"", "      - run: ci/run-suite.sh stage-b-cpu").replace(
        "  stage-b-cpu:\n    needs: resolve-ci-policy\n    runs-on: ubuntu-latest\n    env:\n      CADENCE: ${{"
            + " needs.resolve-ci-policy.outputs.cadence }}\n      LABELS: ${{ needs.resolve-ci-policy.outputs.raw_labels }}\n",
        "  stage-b-cpu:\n    needs: resolve-ci-policy\n    runs-on: ubuntu-latest\n    env:\n      LABELS: ${{"
            + " needs.resolve-ci-policy.outputs.raw_labels }}\n"));
    assertThat(noCadence).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.STAGE_CONSUMES_POLICY);
      assertThat(f.message()).contains("runs suite stage-b-cpu without the policy's cadence;")
          .contains("${{ needs.resolve-ci-policy.outputs.cadence }}");
    });
  }

  @Test
  void everyWorkflowCronIsInTheTableAndEveryTableCronInAWorkflow() {
    List<LintFinding> findings = fixedWith(t -> replaced(t, "    - cron: \"0 15 * * 6\"     # weekly, Saturday\n",
        "    - cron: \"0 16 * * 6\"\n"));
    assertThat(findings).filteredOn(f -> f.rule() == LintRule.CRON_TABLE)
        .extracting(LintFinding::message)
        .anySatisfy(m -> assertThat(m).startsWith("pr-test.yml runs on cron '0 16 * * 6'"));
    // the ROCm workflow still runs the weekly cron, so the table's cron is scheduled
    assertThat(findings).filteredOn(f -> f.rule() == LintRule.CRON_TABLE).hasSize(1);
    List<LintFinding> unscheduled = lint().lint(List.of(
        WorkflowLoader.load("pr-test.yml", replaced(read("workflows/model/fixed/pr-test.yml"),
            "    - cron: \"0 15 * * 6\"     # weekly, Saturday\n", ""))));
    LintFinding f = unscheduled.stream().filter(x -> x.rule() == LintRule.CRON_TABLE).findFirst().orElseThrow();
    assertThat(f.message()).startsWith("the policy schedules cron '0 15 * * 6' (cadence weekly) but no workflow");
    assertThat(f.location().source()).isEqualTo("miles.yaml");
    assertThat(f.location().line()).isEqualTo(lineOf(read("policies/miles.yaml"), "  - cron: \"0 15 * * 6\""));
  }

  @Test
  void everySuiteHasExactlyOneJobAndAJobNamedLikeASuiteRunsADeclaredOne() {
    String text = read("workflows/model/fixed/pr-test.yml");
    String b200 = text.substring(text.indexOf("\n  stage-c-8-gpu-b200:"));
    List<LintFinding> missing = fixedWith(t -> t.replace(b200, "\n"));
    assertThat(missing).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.SUITE_HAS_ONE_JOB);
      assertThat(f.message()).startsWith("suite stage-c-8-gpu-b200 has no stage job in [pr-test.yml,"
          + " pr-test-rocm.yml]");
      assertThat(f.location().source()).isEqualTo("miles.yaml");
    });
    List<LintFinding> misnamed = fixedWith(t -> t.replace("stage-c-8-gpu-b200", "stage-c-8-gpu-b20"));
    assertThat(misnamed).extracting(f -> f.rule().id() + " " + f.job().orElse(""))
        .contains("suite-has-one-job stage-c-8-gpu-b20");
    String cpu = text.substring(text.indexOf("  stage-b-cpu:"), text.indexOf("  docker-build:"));
    List<LintFinding> twice = lint().lint(set("fixed", UnaryOperator.identity(), t -> t + "\n" + cpu));
    assertThat(twice).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.SUITE_HAS_ONE_JOB);
      assertThat(f.message()).contains("suite stage-b-cpu has more than one stage job");
    });
    // a suite without registered tests needs no job
    assertThat(lint().withRegisteredSuites(Set.of("stage-a-cpu", "stage-b-cpu", "stage-b-2-gpu-h200",
        "stage-c-2-gpu-h200", "stage-c-4-gpu-h200", "stage-c-8-gpu-h200", "stage-c-8-gpu-h100",
        "stage-c-4-gpu-mi350")).lint(set("fixed", t -> t.replace(b200, "\n"), UnaryOperator.identity()))).isEmpty();
  }

  @Test
  void aThrottledCadenceNeverHoldsMoreRunnersOfAPoolThanItsShare() {
    List<LintFinding> findings = fixedWith(t -> replaced(t,
        "      max-parallel: ${{ needs.resolve-ci-policy.outputs.cadence == 'weekly' && 1 || 2 }}\n"
            + "      matrix:\n        shard: [0, 1]\n    env:\n      CADENCE: ${{ needs.resolve-ci-policy.outputs.cadence }}\n"
            + "      LABELS: ${{ needs.resolve-ci-policy.outputs.raw_labels }}\n      IMAGE: ${{ needs.resolve-ci-image.outputs"
            + ".image }}\n    steps:\n      - uses: actions/checkout@v4\n      - run: ci/run-suite.sh stage-c-8-gpu-h100",
        "      matrix:\n        shard: [0, 1]\n    env:\n      CADENCE: ${{ needs.resolve-ci-policy.outputs.cadence }}\n"
            + "      LABELS: ${{ needs.resolve-ci-policy.outputs.raw_labels }}\n      IMAGE: ${{ needs.resolve-ci-image.outputs"
            + ".image }}\n    steps:\n      - uses: actions/checkout@v4\n      - run: ci/run-suite.sh stage-c-8-gpu-h100"));
    assertThat(findings).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.POOL_SHARE);
      assertThat(f.job()).contains("stage-c-8-gpu-h100");
      assertThat(f.message()).startsWith("under cadence weekly (schedule '0 15 * * 6'), stage-c-8-gpu-h100 (2 runners)"
          + " can hold 2 h100 runners at once; weekly's share of h100 is 1 runner");
    });
    List<LintFinding> parallel = lint().lint(set("buggy", UnaryOperator.identity(), UnaryOperator.identity()));
    assertThat(parallel).filteredOn(f -> f.rule() == LintRule.POOL_SHARE).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("stage-b-2-gpu-h200 (1 runner) and stage-c-2-gpu-h200"
            + " (1 runner) and stage-c-4-gpu-h200 (1 runner) and stage-c-8-gpu-h200 (1 runner) can hold 4 h200"
            + " runners at once"));
  }

  @Test
  void aStageListedInTheSkippedStagesDoesNotRun() {
    List<LintFinding> findings = fixedWith(t -> replaced(t, "      ${{ always() && needs.resolve-ci-image.result =="
        + " 'success'\n      && !contains(needs.resolve-ci-policy.outputs.skipped_stages, '\"stage-c-8-gpu-h100\"') }}",
        "      ${{ always() && needs.resolve-ci-image.result == 'success' }}"));
    assertThat(findings).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.SKIP_LIST_HONOURED);
      assertThat(f.job()).contains("stage-c-8-gpu-h100");
      assertThat(f.message()).contains("runs although needs.resolve-ci-policy.outputs.skipped_stages lists its suite");
    });
  }

  @Test
  void aNeedsTypoIsTheRootCauseNotAMissingSkipListCheck() {
    List<LintFinding> findings = fixedWith(t -> replaced(t,
        "!contains(needs.resolve-ci-policy.outputs.skipped_stages, '\"stage-c-8-gpu-h100\"')",
        "!contains(needs.resolve-ci-polcy.outputs.skipped_stages, '\"stage-c-8-gpu-h100\"')"));
    assertThat(findings).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.NEEDS_DIRECT);
      assertThat(f.severity()).isEqualTo(LintFinding.Severity.ERROR);
      assertThat(f.job()).contains("stage-c-8-gpu-h100");
      assertThat(f.message()).contains("reads needs.resolve-ci-polcy, but resolve-ci-polcy is not a job it needs"
          + " directly").contains("(did you mean resolve-ci-policy?)");
    });
  }

  @Test
  void aNeedOfAGrandparentIsNamedAsNotDirect() {
    Workflow w = WorkflowLoader.load("w.yml", "on: push\njobs:\n  a:\n    runs-on: x\n    outputs:\n      o: v\n"
        + "  b:\n    needs: a\n    runs-on: x\n  c:\n    needs: b\n    if: needs.a.outputs.o == 'v'\n    runs-on: x\n");
    assertThat(WorkflowLint.withoutPolicy().lint(List.of(w))).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.NEEDS_DIRECT);
      assertThat(f.location().line()).isEqualTo(12);
      assertThat(f.message()).contains("job c reads needs.a, but a is not a job it needs directly (its needs: [b])")
          .contains("add a to its needs");
    });
  }

  @Test
  void aWorkflowWithoutRolesIsAWarningNamingWhatToAdd() {
    Workflow other = WorkflowLoader.load("docs.yml", "on: push\njobs:\n  build:\n    runs-on: x\n");
    Workflow reusable = WorkflowLoader.load("callee.yml", "on: workflow_call\njobs:\n  x:\n    runs-on: x\n");
    List<Workflow> all = new ArrayList<>(set("fixed", UnaryOperator.identity(), UnaryOperator.identity()));
    all.add(other);
    all.add(reusable);
    assertThat(lint().lint(all)).singleElement().satisfies(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.WORKFLOW_ROLES);
      assertThat(f.severity()).isEqualTo(LintFinding.Severity.WARNING);
      assertThat(f.location()).isEqualTo(new SourceLocation("docs.yml", 1, 1));
      assertThat(f.message()).contains("the policy declares no roles for workflow docs.yml, so bypass-keeps-stages")
          .contains("were not checked on it; add `workflows: {docs: {roles: {file: docs.yml, policy_job:");
    });
    assertThat(lint().withoutRoles(all)).containsExactly("docs.yml");
    assertThat(WorkflowLint.withoutPolicy().withoutRoles(all)).isEmpty();
  }

  @Test
  void theDefaultLabelsRoleIsTheOutputTheCliWrites() {
    // pr-test-rocm's roles take every default: its policy job publishes the action's raw_labels
    assertThat(MILES.policy().workflowRoles()).filteredOn(r -> r.file().equals("pr-test-rocm.yml")).singleElement()
        .satisfies(r -> assertThat(r.labelsOutput()).isEqualTo("raw_labels"));
    assertThat(read("workflows/model/fixed/pr-test-rocm.yml"))
        .contains("raw_labels: ${{ steps.resolve.outputs.raw_labels }}")
        .contains("${{ needs.resolve-ci-policy.outputs.raw_labels }}");
    assertThat(lint().lint(set("fixed", UnaryOperator.identity(), UnaryOperator.identity()))).isEmpty();
  }

  @Test
  void aMissingOutputsFixNamesAnOutputTheActionWrites() {
    List<LintFinding> findings = lint().lint(set("fixed", UnaryOperator.identity(), t -> replaced(t,
        "      raw_labels: ${{ steps.resolve.outputs.raw_labels }}\n", "")));
    assertThat(findings).filteredOn(f -> f.rule() == LintRule.WORKFLOW_ROLES).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("declares no output 'raw_labels'")
            .contains("add `raw_labels: ${{ steps.<resolve step>.outputs.raw_labels }}`"));
    // roles that name the labels output `labels`: the fix still reads the output the action writes, raw_labels
    LoadedPolicy renamed = PolicyLoader.load("miles.yaml", replaced(read("policies/miles.yaml"),
        "labels: raw_labels, bypass: bypass_fastfail", "labels: labels, bypass: bypass_fastfail"));
    assertThat(WorkflowLint.of(renamed.policy(), renamed.locator())
        .lint(set("fixed", UnaryOperator.identity(), UnaryOperator.identity())))
        .filteredOn(f -> f.rule() == LintRule.WORKFLOW_ROLES).singleElement()
        .satisfies(f -> assertThat(f.message()).contains("declares no output 'labels'")
            .contains("add `labels: ${{ steps.<resolve step>.outputs.raw_labels }}`"));
  }

  @Test
  void rolesNamingAMissingFileOrJobAreFindings() {
    List<LintFinding> oneFile = lint().lint(List.of(WorkflowLoader.load("pr-test.yml",
        read("workflows/model/fixed/pr-test.yml"))));
    assertThat(oneFile).filteredOn(f -> f.rule() == LintRule.WORKFLOW_ROLES).singleElement()
        .satisfies(f -> {
          assertThat(f.message()).contains("workflow file 'pr-test-rocm.yml', which is not in the workflows directory");
          assertThat(f.location().source()).isEqualTo("miles.yaml");
        });
    List<LintFinding> noPolicyJob = fixedWith(t -> t.replace("resolve-ci-policy", "policy"));
    assertThat(noPolicyJob).extracting(LintFinding::message)
        .anySatisfy(m -> assertThat(m).contains("has no job 'resolve-ci-policy' (roles.policy_job)"));
  }

  @Test
  void withoutAPolicyOnlyTheClosedRuleApplies() {
    assertThat(WorkflowLint.withoutPolicy().lint(set("buggy", UnaryOperator.identity(), UnaryOperator.identity())))
        .isEmpty();
    assertThat(WorkflowLint.withoutPolicy().lint(set("fixed",
        t -> replaced(t, "    if: github.event.action != 'closed'\n", ""), UnaryOperator.identity())))
        .extracting(f -> f.rule().id()).containsExactly("closed-runs-nothing");
  }

  @Test
  void findingsAreDeterministicAndOneLine() {
    List<Workflow> buggy = set("buggy", UnaryOperator.identity(), UnaryOperator.identity());
    assertThat(lint().lint(buggy)).isEqualTo(lint().lint(buggy)).isSortedAccordingTo(LintFinding.ORDER)
        .allSatisfy(f -> assertThat(f.message()).doesNotContain("\n"));
  }

  @Test
  void aShareInGpusCountsTheGpusOfEveryRunnerAndABorrowingShareIsNoCap() {
    String miles = read("policies/miles.yaml").replace("      throttled_cadences: [weekly]\n", "");
    String capped = replaced(miles, "h200: {gpus: 12, borrow: true}", "h200: {gpus: 8}");
    LoadedPolicy policy = PolicyLoader.load("miles.yaml", capped);
    List<LintFinding> findings = WorkflowLint.of(policy.policy(), policy.locator())
        .lint(set("fixed", UnaryOperator.identity(), UnaryOperator.identity()));
    assertThat(findings).isNotEmpty().allSatisfy(f -> {
      assertThat(f.rule()).isEqualTo(LintRule.POOL_SHARE);
      assertThat(f.job()).contains("stage-c-8-gpu-h200");
      assertThat(f.message()).contains("under cadence nightly")
          .contains("stage-c-8-gpu-h200 (2 runners of 8 GPUs) can hold 16 h200 GPUs at once; nightly's share of h200"
              + " is 8 GPUs");
    });
    LoadedPolicy borrowing = PolicyLoader.load("miles.yaml", miles);
    assertThat(WorkflowLint.of(borrowing.policy(), borrowing.locator())
        .lint(set("fixed", UnaryOperator.identity(), UnaryOperator.identity()))).isEmpty();
  }
}

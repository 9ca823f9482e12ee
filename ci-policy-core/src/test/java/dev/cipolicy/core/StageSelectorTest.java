package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageDecision;
import dev.cipolicy.api.stage.StageOutcome;
import dev.cipolicy.api.stage.StageSelection;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Stage selection from changed files on the reference policy and registrations. */
class StageSelectorTest {
  static final List<String> PR_STAGES = List.of("stage-b-2-gpu-h200", "stage-c-8-gpu-h100", "stage-c-8-gpu-h200",
      "stage-c-4-gpu-h200", "stage-c-2-gpu-h200", "stage-c-8-gpu-b200", "stage-c-4-gpu-mi350");

  private final StageSelector selector = StageSelector.of(ReferencePolicy.registry());
  private final PolicyResolver resolver = ReferencePolicy.resolver();

  /** Encodes entries as {@code git diff --name-status -z -M} output: status then paths, NUL-terminated. */
  static byte[] diff(String... fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String f : fields) {
      out.writeBytes(f.getBytes(StandardCharsets.UTF_8));
      out.write(0);
    }
    return out.toByteArray();
  }

  private StageSelection pr(List<String> raw, byte[] diff) {
    RunPolicy run = resolver.resolveCadence(raw.contains("nightly") ? "nightly" : "regular", raw);
    return selector.select(resolution(TriggerResolution.Source.PULL_REQUEST_LABELS, run), Optional.of(diff));
  }

  /** A resolution of {@code run} by the given rule, as trigger resolution would build it. */
  static TriggerResolution resolution(TriggerResolution.Source source, RunPolicy run) {
    return TriggerResolution.builder()
        .eventName(source == TriggerResolution.Source.PULL_REQUEST_LABELS ? "pull_request" : "schedule")
        .source(source)
        .matchAllLabels(false)
        .runPolicy(run)
        .explanation(run.explanation())
        .build();
  }

  static TriggerResolution pullRequest(RunPolicy run) {
    return resolution(TriggerResolution.Source.PULL_REQUEST_LABELS, run);
  }

  private static List<String> except(String... stages) {
    return PR_STAGES.stream().filter(s -> !List.of(stages).contains(s)).sorted().toList();
  }

  @Test
  void aChangedRegisteredTestRunsItsStageOnly() {
    StageSelection s = pr(List.of("run-ci-lora"), diff("M", "tests/e2e/test_lora.py"));
    assertThat(s.skippedStages()).isEqualTo(except("stage-c-4-gpu-h200"));
    assertThat(s.decisions()).filteredOn(d -> d.stage().equals("stage-c-4-gpu-h200")).singleElement()
        .satisfies(d -> {
          assertThat(d.outcome()).isEqualTo(StageOutcome.RUN);
          assertThat(d.reason()).isEqualTo("changed registered test tests/e2e/test_lora.py");
        });
  }

  @Test
  void aChangedTestWhoseLabelWasNotRequestedIsSkippedWithTheLabelThatWouldRunIt() {
    StageSelection s = pr(List.of(), diff("M", "tests/e2e/test_lora.py"));
    StageSelection irrelevant = pr(List.of(), diff("M", "docs/a.md"));
    assertThat(s.skippedStages()).as("the decision is the reference rule's").isEqualTo(irrelevant.skippedStages());
    assertThat(s.decisions()).filteredOn(d -> d.stage().equals("stage-c-4-gpu-h200")).singleElement()
        .satisfies(d -> {
          assertThat(d.outcome()).isEqualTo(StageOutcome.SKIPPED_NOT_REQUESTED);
          assertThat(d.reason()).isEqualTo("tests/e2e/test_lora.py changed; it runs under label lora: add run-ci-lora");
          assertThat(d.outcome().countsAsSuccess()).isTrue();
        });
    assertThat(s.decisions()).filteredOn(d -> !d.stage().equals("stage-c-4-gpu-h200"))
        .allSatisfy(d -> assertThat(d.outcome()).isNotEqualTo(StageOutcome.SKIPPED_NOT_REQUESTED));
    assertThat(s.explanation().reasons()).extracting(Explanation.Reason::rule).contains("stage.skip-not-requested");
    assertThat(s.explanation().decision()).isEqualTo("7 of 7 PR stages skipped, 1 of them although the change touches"
        + " a test whose label was not requested");
    assertThat(irrelevant.explanation().decision()).isEqualTo("7 of 7 PR stages skipped as irrelevant");
  }

  @Test
  void aDisabledChangedTestIsNotCalledNotRequested() {
    StageSelection s = pr(List.of(), diff("M", "tests/e2e/test_replay.py"));
    assertThat(s.decisions()).allSatisfy(d -> assertThat(d.outcome()).isNotEqualTo(StageOutcome.SKIPPED_NOT_REQUESTED));
  }

  @Test
  void aListOfPathsIsSelectedLikeTheDiff() {
    RunPolicy run = resolver.resolveCadence("regular", List.of());
    TriggerResolution pr = resolution(TriggerResolution.Source.PULL_REQUEST_LABELS, run);
    assertThat(selector.selectPaths(pr, List.of("tests/e2e/test_lora.py", "docs/a.md")))
        .isEqualTo(selector.select(pr, Optional.of(diff("M", "tests/e2e/test_lora.py", "M", "docs/a.md"))));
    assertThat(selector.selectPaths(pr, List.of()).failOpen()).isPresent();
    assertThat(selector.selectPaths(resolution(TriggerResolution.Source.SCHEDULE_TABLE, run), List.of("docs/a.md"))
        .skippedStages()).isEmpty();
  }

  @Test
  void anUnknownPathFansOutToEveryRunnableStage() {
    StageSelection s = pr(List.of("run-ci-megatron"), diff("M", "miles/backends/megatron/train.py"));
    // megatron tests live in the H100 (CUDA) and MI350 (ROCm) stages
    assertThat(s.skippedStages()).isEqualTo(except("stage-c-8-gpu-h100", "stage-c-4-gpu-mi350"));
    assertThat(s.decisions().get(1).reason()).isEqualTo("changed path miles/backends/megatron/train.py matches no"
        + " non-GPU rule and no registered test, so it fans out to every PR stage");
  }

  @Test
  void aDeletedTestFileIsUnregisteredAndFansOut() {
    StageSelection s = pr(List.of("run-ci-all"), diff("D", "tests/e2e/test_removed.py"));
    assertThat(s.skippedStages()).isEmpty();
  }

  @Test
  void docsOnlyChangesSkipEveryStageNobodyAskedFor() {
    StageSelection s = pr(List.of("run-ci-sglang"), diff("M", "docs/ci/00-stage.md", "A", "README.md",
        "M", ".pre-commit-config.yaml", "M", "scripts/tools/sync_example_docs.py", "M", "examples/a/b/guide.mdx"));
    // the explicitly requested sglang stage still runs
    assertThat(s.skippedStages()).isEqualTo(except("stage-c-8-gpu-h200"));
    assertThat(s.decisions()).filteredOn(d -> d.stage().equals("stage-c-8-gpu-h200")).singleElement()
        .extracting(StageDecision::reason).isEqualTo("label run-ci-sglang requests tests/e2e/test_sglang_rollout.py");
  }

  @Test
  void docsOnlyChangeWithoutLabelsSkipsEverything() {
    assertThat(pr(List.of(), diff("M", "docs/index.md")).skippedStages()).isEqualTo(except());
  }

  @Test
  void scopeAndNightlyLabelsMakeEveryRunnableStageExplicit() {
    assertThat(pr(List.of("run-ci-all"), diff("M", "docs/index.md")).skippedStages()).isEmpty();
    assertThat(pr(List.of("nightly"), diff("M", "docs/index.md")).skippedStages()).isEmpty();
    // image scope leaves out ft-short; the 2-GPU stage still has mooncake
    assertThat(pr(List.of("run-ci-image"), diff("M", "docs/index.md")).skippedStages()).isEmpty();
  }

  @Test
  void bypassFastfailIsNotAScope() {
    assertThat(pr(List.of("bypass-fastfail"), diff("M", "miles/core.py")).skippedStages()).isEqualTo(except());
  }

  @Test
  void bothEndsOfARenameCount() {
    // renaming a registered test: the old path is no longer registered, so it fans out
    StageSelection s = pr(List.of("run-ci-lora", "run-ci-eval"),
        diff("R100", "tests/e2e/test_lora_old.py", "tests/e2e/test_lora.py"));
    assertThat(s.skippedStages()).isEqualTo(except("stage-c-4-gpu-h200"));
    StageSelection copy = pr(List.of("run-ci-lora", "run-ci-mooncake"),
        diff("C075", "tests/e2e/test_lora.py", "tests/e2e/test_mooncake.py"));
    assertThat(copy.skippedStages()).isEqualTo(except("stage-c-4-gpu-h200", "stage-c-2-gpu-h200"));
  }

  @Test
  void pathsWithNewlinesAreParsed() {
    StageSelection s = pr(List.of("run-ci-lora"), diff("M", "docs/odd\nname.md"));
    assertThat(s.failOpen()).isEmpty();
    assertThat(s.skippedStages()).isEqualTo(except("stage-c-4-gpu-h200"));
  }

  @Test
  void noPruningOutsidePullRequests() {
    RunPolicy nightly = resolver.resolveCadence("nightly", List.of());
    StageSelection s = selector.select(resolution(TriggerResolution.Source.SCHEDULE_TABLE, nightly), Optional.of(diff("M", "docs/index.md")));
    assertThat(s.skippedStages()).isEmpty();
    assertThat(s.failOpen()).contains("only pull requests prune stages; every PR stage keeps its normal gating");
    assertThat(s.decisions()).allMatch(d -> d.outcome() == StageOutcome.RUN);
    StageSelection overridden = selector.select(resolution(TriggerResolution.Source.CADENCE_OVERRIDE, nightly),
        Optional.of(diff("M", "docs/index.md")));
    assertThat(overridden.skippedStages()).isEmpty();
  }

  @Test
  void aPullRequestWithACadenceOverrideIsPrunedByItsDiff() {
    // a reusable workflow called from a PR passes the event name and an override: the paths decide
    TriggerResolution overridden = resolver.resolve(dev.cipolicy.api.run.TriggerInput.builder()
        .eventName("pull_request").cadenceOverride("regular").build());
    assertThat(overridden.source()).isEqualTo(TriggerResolution.Source.CADENCE_OVERRIDE);
    assertThat(overridden.runPolicy().rawLabels()).isEmpty();
    StageSelection docsOnly = selector.select(overridden, Optional.of(diff("M", "docs/index.md")));
    assertThat(docsOnly.failOpen()).isEmpty();
    assertThat(docsOnly.skippedStages()).isEqualTo(except());
    // exactly what an unlabelled PR at that cadence gets from the same diff
    for (byte[] d : List.of(diff("M", "tests/e2e/test_lora.py"), diff("M", "miles/backends/megatron/train.py"),
        diff("M", "docs/index.md", "D", "tests/e2e/test_removed.py"))) {
      StageSelection s = selector.select(overridden, Optional.of(d));
      assertThat(s.failOpen()).isEmpty();
      assertThat(s.skippedStages()).isEqualTo(pr(List.of(), d).skippedStages());
    }
    // the same override on an event that is not a pull request prunes nothing
    TriggerResolution dispatched = resolver.resolve(dev.cipolicy.api.run.TriggerInput.builder()
        .eventName("workflow_dispatch").cadenceOverride("regular").build());
    assertThat(selector.select(dispatched, Optional.of(diff("M", "docs/index.md"))).skippedStages()).isEmpty();
    TriggerResolution noEvent = resolver.resolve(dev.cipolicy.api.run.TriggerInput.builder()
        .eventName("").cadenceOverride("regular").build());
    assertThat(selector.select(noEvent, Optional.of(diff("M", "docs/index.md"))).skippedStages()).isEmpty();
    assertThat(resolver.isPullRequestEvent("pull_request")).isTrue();
    assertThat(resolver.isPullRequestEvent("schedule")).isFalse();
    assertThat(resolver.isPullRequestEvent("")).isFalse();
  }

  @Test
  void anUnusableDiffFailsOpenWithTheReason() {
    RunPolicy run = resolver.resolveCadence("regular", List.of());
    assertThat(selector.select(pullRequest(run), Optional.of(new byte[0])).failOpen().orElseThrow())
        .startsWith("the diff is unusable (");
    assertThat(selector.select(pullRequest(run), Optional.of("M\0docs/a.md".getBytes(StandardCharsets.UTF_8)))
        .skippedStages()).isEmpty();
    assertThat(selector.select(pullRequest(run), Optional.of(diff("Q", "docs/a.md"))).skippedStages()).isEmpty();
    assertThat(selector.select(pullRequest(run), Optional.empty()).failOpen()).isPresent();
  }

  @Test
  void aSkippedStageCountsAsSuccess() {
    assertThat(StageOutcome.SKIPPED_IRRELEVANT.countsAsSuccess()).isTrue();
  }
}

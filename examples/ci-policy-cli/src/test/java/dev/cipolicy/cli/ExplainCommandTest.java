package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ci-policy explain}: the same inputs as {@code resolve}, the decision in plain sentences (or one JSON
 * object), deterministic, and no file written.
 */
class ExplainCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private Path diff(String... statusAndPaths) throws Exception {
    Path f = tmp.resolve("changed-" + statusAndPaths.length + ".z");
    Files.write(f, (String.join("\0", statusAndPaths) + "\0").getBytes(StandardCharsets.UTF_8));
    return f;
  }

  private static Result explain(Map<String, String> env, String... args) {
    List<String> all = new ArrayList<>(List.of("explain", "--policy", POLICY));
    all.addAll(List.of(args));
    return CliTestSupport.run(env, all.toArray(String[]::new));
  }

  @Test
  void aPullRequestWithAnUnknownAndAnUnprefixedLabelIsExplainedSentenceBySentence() throws Exception {
    Result r = explain(Map.of(), "--event-name", "pull_request", "--pr-labels-json",
        "[\"run-ci-lora\",\"megatron\",\"run-ci-bogus\",\"needs review\"]", "--registrations", REGISTRATIONS,
        "--changed-files", diff("M", "tests/e2e/test_lora.py").toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out().lines().toList()).containsExactly(
        "Cadence regular: pull_request uses its 2 CI label(s) with cadence regular.",
        "Counted labels: run-ci-lora, run-ci-bogus.",
        "Requested: explicitly requested [lora].",
        "Dropped: PR labels ['megatron', 'needs review'] were dropped: only workflow labels and run-ci-<label>"
            + " count.",
        "Dropped: run-ci-bogus names 'bogus', which is not a known label.",
        "Warning: PR label 'megatron' ignored: only 'run-ci-<label>' requests a test area (did you mean"
            + " 'run-ci-megatron'?).",
        "Warning: label 'run-ci-bogus' requests nothing: 'bogus' is not a known label; the known labels are [amd,"
            + " ckpt, eval, fsdp, ft-long, ft-short, fully-async, long, lora, megatron, miles-plugin, model-scripts,"
            + " mooncake, precision, qwen35, replay, sglang, short, weight-update].",
        "Scope: no scope rule matched, so only explicitly requested labels are included.",
        "Included test labels (1): lora.",
        "Run policy: cadence regular does not admit nightly-only tests, keeps fast-fail and does not write metric"
            + " baselines.",
        "Flags: admit_nightly_tests=false, bypass_fastfail=false, write_baseline=false.",
        "Stage stage-b-2-gpu-h200 is skipped: no enabled test of stage-b-2-gpu-h200 matches the run policy.",
        "Stage stage-c-8-gpu-h100 is skipped: no enabled test of stage-c-8-gpu-h100 matches the run policy.",
        "Stage stage-c-8-gpu-h200 is skipped: no enabled test of stage-c-8-gpu-h200 matches the run policy.",
        "Stage stage-c-4-gpu-h200 runs: changed registered test tests/e2e/test_lora.py.",
        "Stage stage-c-2-gpu-h200 is skipped: no enabled test of stage-c-2-gpu-h200 matches the run policy.",
        "Stage stage-c-8-gpu-b200 is skipped: no enabled test of stage-c-8-gpu-b200 matches the run policy.",
        "Stage stage-c-4-gpu-mi350 is skipped: no enabled test of stage-c-4-gpu-mi350 matches the run policy.",
        "Would change it: adding run-ci-all would include every known label.");
  }

  @Test
  void theSameInputsGiveTheSameOutputAndNoFileIsWritten() throws Exception {
    Path output = tmp.resolve("github_output");
    Path summary = tmp.resolve("step_summary");
    Map<String, String> env = Map.of("GITHUB_OUTPUT", output.toString(), "GITHUB_STEP_SUMMARY", summary.toString(),
        "EVENT_NAME", "pull_request", "PR_LABELS_JSON", "[\"run-ci-lora\"]");
    Result first = explain(env);
    Result second = explain(env);
    assertThat(first.code()).isZero();
    assertThat(first.out()).isNotEmpty().isEqualTo(second.out());
    assertThat(output).doesNotExist();
    assertThat(summary).doesNotExist();
    // the environment fallbacks are resolve's: the same labels, the same cadence
    Result resolve = CliTestSupport.run(Map.of("EVENT_NAME", "pull_request", "PR_LABELS_JSON", "[\"run-ci-lora\"]"),
        "resolve", "--policy", POLICY, "--json");
    JsonNode resolved = JSON.readTree(resolve.out());
    JsonNode explained = JSON.readTree(explain(env, "--json").out());
    assertThat(explained.get("cadence")).isEqualTo(resolved.get("cadence"));
    assertThat(explained.get("include_labels")).isEqualTo(resolved.get("include_labels"));
    assertThat(explained.get("explanation")).isEqualTo(resolved.get("explanation"));
  }

  @Test
  void aScheduleNamesItsCronAndCadence() {
    Result r = explain(Map.of(), "--event-name", "schedule", "--schedule", "0 15 * * 6");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().toList())
        .startsWith("Cadence weekly: schedule '0 15 * * 6' maps to cadence weekly.", "Counted labels: none.")
        .contains("Flags: admit_nightly_tests=true, bypass_fastfail=true, write_baseline=true.",
            "Every stage runs: no registrations were given, so nothing is pruned.");
  }

  @Test
  void aDispatchRunsWithItsFixedCadence() {
    Result r = explain(Map.of(), "--event-name", "workflow_dispatch", "--registrations", REGISTRATIONS);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().toList())
        .startsWith("Cadence regular: workflow_dispatch runs with cadence regular and GPU stages match every known"
            + " label.")
        .contains("Every stage runs: only pull requests prune stages; every PR stage keeps its normal gating.");
  }

  @Test
  void theNightlyWorkflowLabelSwitchesAPullRequestsCadence() {
    Result r = explain(Map.of(), "--event-name", "pull_request", "--pr-labels-json", "[\"nightly\"]");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().toList())
        .startsWith("Cadence nightly: pull_request uses its 1 CI label(s) and label nightly switches the"
            + " cadence to nightly.", "Counted labels: nightly.")
        .contains("Flags: admit_nightly_tests=true, bypass_fastfail=true, write_baseline=true.");
  }

  @Test
  void anOverrideBeatsTheEventAndItsLabels() {
    Result r = explain(Map.of(), "--event-name", "pull_request", "--pr-labels-json", "[\"run-ci-lora\"]",
        "--cadence-override", "release");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().toList())
        .startsWith("Cadence release: the cadence override 'release' takes precedence over the event and its labels.",
            "Counted labels: none.")
        .contains("Flags: admit_nightly_tests=true, bypass_fastfail=true, write_baseline=false.");
  }

  @Test
  void aDocsOnlyDiffSkipsEveryStageAndSaysWhy() throws Exception {
    // an override on a pull request: no labels, every nightly label included, so the changed paths decide
    Result r = explain(Map.of(), "--event-name", "pull_request", "--cadence-override", "nightly", "--registrations",
        REGISTRATIONS, "--changed-files", diff("M", "docs/guide.md").toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("skipped_stages")).hasSize(7);
    assertThat(j.get("fail_open").isNull()).as("the selector pruned").isTrue();
    assertThat(j.get("source").asText()).isEqualTo("CADENCE_OVERRIDE");
    List<String> sentences = new ArrayList<>();
    j.get("sentences").forEach(s -> sentences.add(s.asText()));
    assertThat(sentences).contains("Stage stage-c-4-gpu-h200 is skipped: no changed path affects stage-c-4-gpu-h200"
        + " and no label requests it.");
    assertThat(sentences).noneMatch(s -> s.contains(" runs:"));
    // the text form prints the same sentences
    Result text = explain(Map.of(), "--event-name", "pull_request", "--cadence-override", "nightly",
        "--registrations", REGISTRATIONS, "--changed-files", diff("M", "docs/guide.md").toString());
    assertThat(text.out().lines().toList()).isEqualTo(sentences);
  }

  @Test
  void anInputErrorIsResolvesError() {
    Result r = explain(Map.of());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo("::error::no event name: pass --event-name or set EVENT_NAME or GITHUB_EVENT_NAME\n");
  }

  @Test
  void hostileLabelsStayOnTheirLine() {
    Result r = explain(Map.of(), "--event-name", "pull_request", "--pr-labels-json",
        "[\"x\\n::error::forged\",\"run-ci-a\\u2028b\"]");
    assertThat(r.code()).as(r.err()).isZero();
    WorkflowCommandForgeryProperties.assertNoForgedCommand(r, "explain");
    assertThat(r.out()).contains("'x\\n:\u200b:error:\u200b:forged'");
  }

  @Test
  void aBypassFastfailLabelIsExplainedWithoutSayingTheRunKeepsFastFailAndWithoutTheWordCanonical()
      throws Exception {
    Result r = explain(Map.of(), "--event-name", "pull_request", "--pr-labels-json",
        "[\"bypass-fastfail\",\"run-ci-lorra\",\"docs\"]");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).doesNotContain("keeps fast-fail").doesNotContainIgnoringCase("canonical")
        .contains("Run policy: a bypass-fastfail workflow label bypasses fast-fail (cadence regular alone would keep"
            + " it), so the run continues after a failure.")
        .contains("Warning: label 'run-ci-lorra' requests nothing: 'lorra' is not a known label; did you mean"
            + " run-ci-lora?")
        .contains("bypass_fastfail=true");
  }
}

package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.gate.Gates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ci-policy gate}, {@code gate-revoke} and {@code gate-replay}. */
class GateCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GATES = "examples/gate/gates.yaml";
  private static final String TEST = "tests/e2e/test_fsdp_short.py";

  @TempDir
  Path tmp;
  private String history;

  @BeforeEach
  void writeThreeNightlies() {
    history = tmp.resolve("history.json").toString();
    for (int i = 1; i <= 3; i++) {
      Result r = gate("examples/gate/nightly-" + i + ".json", "--write-baseline", "--ci-run-id", "900" + i,
          "--commit", "c0ffee" + i, "--cadence", "nightly", "--created-at", "2026-11-2" + i + "T15:00:00Z");
      assertThat(r.code()).isZero();
      assertThat(r.out()).contains("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: wrote baseline");
    }
  }

  private Result gate(String record, String... extra) {
    return gate(Map.of(), record, extra);
  }

  private Result gate(Map<String, String> env, String record, String... extra) {
    return gateUnder(POLICY, env, record, extra);
  }

  private Result gateUnder(String policy, Map<String, String> env, String record, String... extra) {
    List<String> args = new ArrayList<>(List.of("gate", "--policy", policy, "--gates", GATES, "--test-file", TEST,
        "--registrations", REGISTRATIONS, "--record", record, "--history", history));
    args.addAll(List.of(extra));
    return run(env, args.toArray(String[]::new));
  }

  @Test
  void theReferencePolicyCarriesTheDefaultsTableOfSpec11() throws Exception {
    String text = Files.readString(CliTestSupport.REPO.resolve(POLICY));
    assertThat(PolicyLoader.load(POLICY, text).policy().gateDefaults()).isEqualTo(Gates.referenceDefaults());
  }

  @Test
  void aShadowRunPrintsTheVerdictAndTheStepSummaryAndNeverWrites() throws Exception {
    byte[] before = Files.readAllBytes(Path.of(history));
    Result r = gate("examples/gate/pr-regression.json");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: FAIL (6 coordinates: 3 PASS,"
        + " 2 FAIL, 1 ERROR; 2 regressions; run untrusted)\n\n### CI Gate (shadow): `tests/e2e/test_fsdp_short.py`"
        + " — FAIL\n");
    assertThat(r.out()).contains("| `train/grad_norm` | 1 | FAIL regression | 2.4 | [0.198, 1.485] | 0.99 (3) |"
        + " 2.4 is above the upper limit 1.485 by 0.915 (regression) |\n");
    assertThat(r.out()).contains("| `train/grad_norm` | 2 | ERROR |  |  |  | step 2 of 'train/grad_norm' is not"
        + " finite: NaN |\n");
    assertThat(Files.readAllBytes(Path.of(history))).isEqualTo(before);
  }

  @Test
  void withoutFailOnEveryRegressionAndErrorIsAWarningAndTheExitCodeStaysZero() {
    Result r = gate("examples/gate/pr-regression.json", "--step-summary", tmp.resolve("s.md").toString());
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEqualTo(""
        + "::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-regression::tests/e2e/test_fsdp_short.py:"
        + " train/grad_norm step 1: FAIL: 2.4 is above the upper limit 1.485 by 0.915 (regression); band [0.198, 1.485]\n"
        + "::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-error::tests/e2e/test_fsdp_short.py:"
        + " train/grad_norm step 2: ERROR: step 2 of 'train/grad_norm' is not finite: NaN\n"
        + "::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-regression::tests/e2e/test_fsdp_short.py:"
        + " rollout/raw_reward step 2: FAIL: 0.3 is below the lower limit 0.384 by 0.084 (regression); band"
        + " [0.384, 0.72]\n");
    assertThat(r.out()).doesNotContain("failing the run");
  }

  @Test
  void failOnRegressionExitsOneAndMakesEachRegressionAnError() {
    Result r = gate("examples/gate/pr-regression.json", "--step-summary", tmp.resolve("s.md").toString(),
        "--fail-on", "regression");
    assertThat(r.code()).isEqualTo(1);
    List<String> err = r.err().lines().toList();
    assertThat(err).hasSize(3);
    assertThat(err.get(0)).startsWith("::error file=tests/e2e/test_fsdp_short.py,title=ci-gate-regression::")
        .endsWith("band [0.198, 1.485] (blocks: --fail-on regression)");
    // an ERROR verdict does not block a regression-only gate: still a warning
    assertThat(err.get(1)).startsWith("::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-error::");
    assertThat(err.get(2)).startsWith("::error file=tests/e2e/test_fsdp_short.py,title=ci-gate-regression::");
    assertThat(r.out()).endsWith("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: failing the run: 2 verdicts"
        + " block with --fail-on regression\n");

    Result errors = gate("examples/gate/pr-regression.json", "--step-summary", tmp.resolve("s.md").toString(),
        "--fail-on", "error");
    assertThat(errors.code()).isEqualTo(1);
    assertThat(errors.err().lines()).hasSize(3).allMatch(l -> l.startsWith("::error file="));
    assertThat(errors.out()).endsWith(": failing the run: 3 verdicts block with --fail-on error\n");

    // a run that passes does not fail, whatever --fail-on says; nor does an explicit never
    Result passing = gate("examples/gate/nightly-3.json", "--step-summary", tmp.resolve("s.md").toString(),
        "--fail-on", "error");
    assertThat(passing.code()).isZero();
    assertThat(passing.err()).isEmpty();
    assertThat(gate("examples/gate/pr-regression.json", "--step-summary", tmp.resolve("s.md").toString(),
        "--fail-on", "never").code()).isZero();
    Result unknown = gate("examples/gate/pr-regression.json", "--fail-on", "sometimes");
    assertThat(unknown.code()).isEqualTo(1);
    assertThat(unknown.err()).isEqualTo("::error::--fail-on: expected regression, error or never, found 'sometimes'\n");
  }

  @Test
  void thePolicysFailOnBlocksTheRunsOfItsCadenceAndAnExplicitFailOnWins() throws Exception {
    String text = Files.readString(CliTestSupport.REPO.resolve(POLICY));
    assertThat(text).contains("\ngates:\n  defaults:\n");
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(policy, text.replace("\ngates:\n  defaults:\n",
        "\ngates:\n  fail_on: {nightly: regression, weekly: error}\n  defaults:\n"));
    String summary = tmp.resolve("s.md").toString();

    Result nightly = gateUnder(policy.toString(), Map.of(), "examples/gate/pr-regression.json", "--cadence",
        "nightly", "--step-summary", summary);
    assertThat(nightly.code()).isEqualTo(1);
    List<String> err = nightly.err().lines().toList();
    assertThat(err).hasSize(3);
    assertThat(err.get(0)).startsWith("::error file=tests/e2e/test_fsdp_short.py,title=ci-gate-regression::")
        .endsWith("band [0.198, 1.485] (blocks: gates.fail_on.nightly: regression)");
    assertThat(err.get(1)).startsWith("::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-error::");
    assertThat(err.get(2)).startsWith("::error file=tests/e2e/test_fsdp_short.py,title=ci-gate-regression::");
    assertThat(nightly.out()).endsWith("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: failing the run: 2"
        + " verdicts block with gates.fail_on.nightly: regression\n");

    Result weekly = gateUnder(policy.toString(), Map.of(), "examples/gate/pr-regression.json", "--cadence",
        "weekly", "--step-summary", summary);
    assertThat(weekly.code()).isEqualTo(1);
    assertThat(weekly.out()).endsWith(": failing the run: 3 verdicts block with gates.fail_on.weekly: error\n");

    // a cadence the policy does not list, or no cadence at all, only warns
    for (List<String> cadence : List.of(List.of("--cadence", "regular"), List.<String>of())) {
      List<String> extra = new ArrayList<>(cadence);
      extra.addAll(List.of("--step-summary", summary));
      Result regular = gateUnder(policy.toString(), Map.of(), "examples/gate/pr-regression.json",
          extra.toArray(String[]::new));
      assertThat(regular.code()).as(cadence.toString()).isZero();
      assertThat(regular.err().lines()).as(cadence.toString()).hasSize(3)
          .allMatch(l -> l.startsWith("::warning file="));
      assertThat(regular.out()).doesNotContain("failing the run");
    }

    // an explicit --fail-on wins over the policy, in both directions
    Result off = gateUnder(policy.toString(), Map.of(), "examples/gate/pr-regression.json", "--cadence",
        "nightly", "--step-summary", summary, "--fail-on", "never");
    assertThat(off.code()).isZero();
    assertThat(off.err().lines()).allMatch(l -> l.startsWith("::warning file="));
    Result on = gateUnder(policy.toString(), Map.of(), "examples/gate/pr-regression.json", "--cadence",
        "regular", "--step-summary", summary, "--fail-on", "error");
    assertThat(on.code()).isEqualTo(1);
    assertThat(on.out()).endsWith(": failing the run: 3 verdicts block with --fail-on error\n");

    // the cadence picks a blocking level, so a misspelt one is an unusable argument, not a silent report-only run
    Result typo = gateUnder(policy.toString(), Map.of(), "examples/gate/pr-regression.json", "--cadence",
        "nighty", "--step-summary", summary);
    assertThat(typo.code()).isEqualTo(1);
    assertThat(typo.err()).isEqualTo("::error::--cadence: unknown cadence 'nighty' (the policy's gates.fail_on"
        + " blocks by cadence); expected one of [nightly, regular, release, weekly]\n");
  }

  @Test
  void aMetricKeyWithALineBreakAndPercentIsOneAnnotationLine() throws Exception {
    Path gates = tmp.resolve("gates.yaml");
    Files.writeString(gates, "tests/e2e/test_fsdp_short.py:\n  - {metric_key: \"a%\\n::set-output name=x::y\", steps: last,"
        + " constraint: {rel_up: .5, abs_floor_up: .1, rel_down: .5, abs_floor_down: .1}}\n");
    List<String> args = new ArrayList<>(List.of("gate", "--policy", POLICY, "--gates", gates.toString(), "--test-file",
        TEST, "--registrations", REGISTRATIONS, "--record", "examples/gate/pr-regression.json", "--history", history,
        "--step-summary", tmp.resolve("s.md").toString(), "--fail-on", "error"));
    Result r = run(args.toArray(String[]::new));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error file=tests/e2e/test_fsdp_short.py,title=ci-gate-error::"
        + "tests/e2e/test_fsdp_short.py: a%25\\n::set-output name=x::y step -: ERROR: metric 'a%25\\n::set-output"
        + " name=x::y' is not in the record (blocks: --fail-on error)\n");
  }

  @Test
  void aBaselineWriteKeepsTheHistoryFilesMode() throws Exception {
    Path file = Path.of(history);
    List<String> modes = List.of("rw-r--r--", "rw-r-----");
    for (int i = 0; i < modes.size(); i++) {
      String mode = modes.get(i);
      Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString(mode));
      Result r = gate("examples/gate/nightly-3.json", "--write-baseline", "--ci-run-id", "950" + i);
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains("wrote baseline");
      assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo(mode);
    }
    // the write leaves no temporary file beside the history
    try (java.util.stream.Stream<Path> files = Files.list(tmp)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void theStepSummaryIsAppendedToTheGithubFile() throws Exception {
    Path summary = tmp.resolve("summary.md");
    Files.writeString(summary, "earlier\n");
    Result r = gate(Map.of("GITHUB_STEP_SUMMARY", summary.toString()), "examples/gate/pr-regression.json");
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: FAIL (6 coordinates: 3 PASS,"
        + " 2 FAIL, 1 ERROR; 2 regressions; run untrusted)\n");
    assertThat(Files.readString(summary)).startsWith("earlier\n### CI Gate (shadow): `tests/e2e/test_fsdp_short.py`"
        + " — FAIL\n").endsWith("</details>\n\n");
  }

  @Test
  void jsonCarriesEveryVerdictWithItsEvidence() throws Exception {
    Result r = gate("examples/gate/pr-regression.json", "--json", "--advisory", "median-mad");
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("action").asText()).isEqualTo("shadow_reported");
    JsonNode result = j.get("result");
    assertThat(result.get("trusted").asBoolean()).isFalse();
    JsonNode v = result.get("verdicts").get(1);
    assertThat(v.get("status").asText()).isEqualTo("FAIL");
    assertThat(v.get("finding").asText()).isEqualTo("REGRESSION");
    JsonNode e = v.get("evidence");
    assertThat(e.get("model").asText()).isEqualTo("band");
    assertThat(e.get("n").asInt()).isEqualTo(3);
    assertThat(e.get("upper").asDouble()).isCloseTo(1.485, org.assertj.core.api.Assertions.within(1e-12));
    assertThat(e.get("binding").asText()).isEqualTo("upper");
    assertThat(e.get("margin").asDouble()).isLessThan(0);
    assertThat(v.get("advisories").get(0).get("status").asText()).isEqualTo("INSUFFICIENT_HISTORY");
    assertThat(j.get("step_summary").asText()).startsWith("### CI Gate (shadow)");
  }

  @Test
  void aBaselineRunAppendsOneRunToTheHistory() throws Exception {
    Result r = gate("examples/gate/pr-regression.json", "--write-baseline", "--ci-run-id", "9004", "--created-at",
        "2026-11-24T15:00:00Z", "--trust", "per-run");
    assertThat(r.out()).startsWith("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: FAIL (6 coordinates: 3 PASS,"
        + " 2 FAIL, 1 ERROR; 2 regressions; run untrusted)\n[CI Gate][baseline] tests/e2e/test_fsdp_short.py: wrote"
        + " baseline\n");
    JsonNode h = JSON.readTree(Path.of(history).toFile());
    JsonNode run = h.get("runs").get(3);
    assertThat(run.get("run_id").asInt()).isEqualTo(4);
    assertThat(run.get("trusted").asBoolean()).isFalse();
    assertThat(run.get("samples")).hasSize(5); // the NaN step has no sample
    run.get("samples").forEach(s -> assertThat(s.get("trusted").asBoolean()).isFalse());
  }

  @Test
  void aTestWithoutGatesWritesNothing() {
    Result r = run("gate", "--policy", POLICY, "--gates", GATES, "--test-file", "tests/e2e/test_lora.py",
        "--registrations", REGISTRATIONS, "--record", "examples/gate/nightly-1.json", "--history",
        tmp.resolve("new.json").toString(), "--write-baseline", "--ci-run-id", "9004");
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("[CI Gate][baseline] tests/e2e/test_lora.py: no gate declared; skipping write\n");
    assertThat(tmp.resolve("new.json")).doesNotExist();
  }

  @Test
  void anUnreadableRecordIsAVerdictNotAnError() throws Exception {
    Path bad = tmp.resolve("bad.json");
    Files.writeString(bad, "{\"train/grad_norm\": [[0, 1.0], [1]], \"rollout/raw_reward\": 5");
    Result r = gate(bad.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("the record is unreadable: " + bad + ":1:");
    Files.writeString(bad, "{\"train/grad_norm\": [[0, 1.0], [1]], \"rollout/raw_reward\": [[0, \"high\"]]}");
    r = gate(bad.toString());
    assertThat(r.out()).contains("metric 'train/grad_norm' is malformed: point 1 is not a [step, value] pair: [1]")
        .contains("metric 'rollout/raw_reward' is malformed: point 0: the value must be a number or \"NaN\"")
        .contains("metric 'rollout/tito_session_mismatch_rate/v2/assistant_text' is not in the record");
    assertThat(gate("no-such-record.json").out()).contains("the record is unreadable: cannot read record file");
  }

  @Test
  void levelShiftsAreProposedAndAccepted() throws Exception {
    Path shifted = tmp.resolve("shifted.json");
    Files.writeString(shifted, "{\"train/grad_norm\": [[0, 2.0], [1, 2.0], [2, 1.9]], \"rollout/raw_reward\": [[0,"
        + " 0.41], [1, 0.44], [2, 0.47]], \"rollout/tito_session_mismatch_rate/v2/assistant_text\": [[0, 0.02]]}");
    gate(shifted.toString(), "--write-baseline", "--ci-run-id", "9024", "--created-at", "2026-11-24T15:00:00Z", "--accept-level-shifts");
    gate(shifted.toString(), "--write-baseline", "--ci-run-id", "9025", "--created-at", "2026-11-25T15:00:00Z", "--accept-level-shifts");
    Result third = gate(shifted.toString(), "--write-baseline", "--ci-run-id", "9026", "--created-at", "2026-11-26T15:00:00Z",
        "--accept-level-shifts");
    assertThat(third.out()).contains("3 regressions, 3 level shifts proposed")
        .contains("accepted a level shift of train/grad_norm step 0");
    Result after = gate(shifted.toString());
    assertThat(after.out()).startsWith("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: PASS (6 coordinates: 6 PASS;"
        + " run trusted)");
    assertThat(JSON.readTree(Path.of(history).toFile()).get("level_starts")).hasSize(3);
  }

  @Test
  void revocationIsByExactlyOneKeyIdempotentAndCounted() throws Exception {
    Result r = run("gate-revoke", "--history", history, "--commit", "c0ffee2");
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("Revoked commit c0ffee2: 1 run(s) matched, 1 newly revoked, 6 trusted sample(s)"
        + " left the baseline\n");
    assertThat(run("gate-revoke", "--history", history, "--commit", "c0ffee2").out())
        .isEqualTo("Revoked commit c0ffee2: 1 run(s) matched, 0 newly revoked, 0 trusted sample(s) left the baseline\n");
    assertThat(run("gate-revoke", "--history", history, "--ci-run-id", "9001", "--run-id", "1").err())
        .isEqualTo("::error::a revocation needs exactly one of run id, CI run id or commit, got [run id 1, CI run id"
            + " 9001]\n");
    assertThat(run("gate-revoke", "--history", history).code()).isEqualTo(1);
    assertThat(JSON.readTree(Path.of(history).toFile()).get("runs").get(1).get("revoked").asBoolean()).isTrue();
  }

  @Test
  void replayBacktestsARuleOverTheStoredHistory() {
    Result r = run("gate-replay", "--policy", POLICY, "--gates", GATES, "--history", history, "--test-file", TEST,
        "--registrations", REGISTRATIONS, "--metric", "train/grad_norm");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("Replaying band on train/grad_norm (steps=all constraint={\"abs_floor_down\":0.1,"
        + "\"abs_floor_up\":0.1,\"rel_down\":0.8,\"rel_up\":0.5}) over tests/e2e/test_fsdp_short.py"
        + " (cuda/stage-c-4-gpu-h200)\n  step 0 (stored as steps=all): 3 values, 0 alert(s) (0.00 %), 0 level shift(s)"
        + " proposed\n");
  }

  @Test
  void unusableArgumentsExitOne() throws Exception {
    Path badGates = tmp.resolve("gates.yaml");
    Files.writeString(badGates, "tests/e2e/test_fsdp_short.py:\n  - {metric_key: m, steps: [1, 1]}\n");
    Result r = run("gate", "--policy", POLICY, "--gates", badGates.toString(), "--test-file", TEST, "--hw", "cuda",
        "--suite", "stage-c-4-gpu-h200", "--record", "examples/gate/nightly-1.json");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error file=" + Console.escapeProperty(badGates.toString())
        + ",line=2,col=32,title=gates::step index 1 is listed twice\n");

    Files.writeString(tmp.resolve("history.json"), "{\"format\": \"ci-policy-gate-history/1\", \"runs\": [{}]}");
    r = gate("examples/gate/nightly-1.json");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::" + history + ": runs[0].test_path: missing required field\n");

    r = gate("examples/gate/nightly-1.json", "--history-store", "postgres");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("::error::--history names the memory store's file;");
    assertThat(gate("examples/gate/nightly-1.json", "--model", "zscore").err())
        .isEqualTo("::error::unknown model 'zscore'; expected one of [band, median-mad, iqr-fence, adjacent-delta]\n");
    assertThat(run("gate", "--policy", POLICY, "--test-file", "tests/e2e/test_megatron_short.py", "--registrations",
        REGISTRATIONS, "--record", "x.json").err()).isEqualTo("::error::test file tests/e2e/test_megatron_short.py has"
        + " 2 registrations in examples/registrations/miles.yaml; pass --hw and --suite\n");
    assertThat(run("gate", "--policy", POLICY, "--test-file", TEST).code()).isEqualTo(2);
  }
}

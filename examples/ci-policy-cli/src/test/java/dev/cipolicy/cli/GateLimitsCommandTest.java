package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ci-policy gate} on hostile sizes and on retried baseline writes: a record beyond the limits is its gates'
 * ERROR with one {@code ::error::} line and exit 0; summaries and comment bodies stay within GitHub's limits; a
 * baseline write needs the CI run's identity and a repeated write stores nothing new.
 */
class GateLimitsCommandTest {
  /** The record these tests build has no mismatch-rate series: that gate's ERROR verdict, as its annotation. */
  private static final String TITO_MISSING = "::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-error::"
      + "tests/e2e/test_fsdp_short.py: rollout/tito_session_mismatch_rate/v2/assistant_text step -: ERROR: metric"
      + " 'rollout/tito_session_mismatch_rate/v2/assistant_text' is not in the record\n";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GATES = "examples/gate/gates.yaml";
  private static final String TEST = "tests/e2e/test_fsdp_short.py";

  @TempDir
  Path tmp;

  private Result gate(Map<String, String> env, String record, String... extra) {
    List<String> args = new ArrayList<>(List.of("gate", "--policy", POLICY, "--gates", GATES, "--test-file", TEST,
        "--registrations", REGISTRATIONS, "--record", record, "--history", tmp.resolve("history.json").toString()));
    args.addAll(List.of(extra));
    return run(env, args.toArray(String[]::new));
  }

  /** A record of {@code points} points of train/grad_norm, written as a stream (never held as one string). */
  private Path record(int points) throws IOException {
    Path file = tmp.resolve("record-" + points + ".json");
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write("{\"train/grad_norm\": [");
      for (int i = 0; i < points; i++) {
        w.write((i == 0 ? "" : ",") + "[" + i + ", 1.0" + (i % 7) + "]");
      }
      w.write("], \"rollout/raw_reward\": [[0, 0.4], [1, 0.4], [2, 0.4]]}");
    }
    return file;
  }

  private static void assertNoStackTrace(Result r) {
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception:").doesNotContain("Error:");
    assertThat(r.out()).doesNotContain("\tat ");
  }

  @Test
  void aMillionPointRecordIsOneReportedErrorWithExitZeroAndFinishesFast() throws Exception {
    Path record = record(1_000_000);
    long start = System.nanoTime();
    Result r = gate(Map.of(), record.toString(), "--json");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20)); // was 57 s, 6 GB
    assertThat(r.code()).isZero();
    assertNoStackTrace(r);
    String limit = record + ": the record has more than 100,000 points, the limit";
    // the limit once, then each of the three gates' ERROR verdict as a (non-blocking) annotation
    assertThat(r.err()).startsWith("::error::" + limit + "\n");
    assertThat(r.err().lines().skip(1)).hasSize(3)
        .allMatch(l -> l.startsWith("::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-error::"));
    JsonNode out = JSON.readTree(r.out());
    assertThat(out.get("result").get("verdicts")).hasSize(3).allSatisfy(v -> {
      assertThat(v.get("status").asText()).isEqualTo("ERROR");
      assertThat(v.get("reason").asText()).isEqualTo("the record is unreadable: " + limit);
    });
  }

  @Test
  void aRecordAtTheLimitIsJudgedWholeInJson() throws Exception {
    Path record = record(99_990);
    long start = System.nanoTime();
    Result r = gate(Map.of(), record.toString(), "--json");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isLessThan(Duration.ofSeconds(60)); // a guard against blow-ups; measured: a few seconds
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEqualTo(TITO_MISSING);
    JsonNode out = JSON.readTree(r.out());
    assertThat(out.get("result").get("verdicts")).hasSize(99_993);
    assertThat(out.get("step_summary").asText().getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(1024 * 1024);
  }

  @Test
  void aHugeMalformedPointIsShownAbbreviated() throws Exception {
    Path bad = tmp.resolve("bad.json");
    Files.writeString(bad, "{\"train/grad_norm\": [\"" + "x".repeat(1_000_000) + "\"]}");
    Result r = gate(Map.of(), bad.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("metric 'train/grad_norm' is malformed: point 0 is not a [step, value] pair: \"xxx")
        .contains("… (1000002 characters) |\n");
    assertThat(r.out().length()).isLessThan(10_000);
  }

  @Test
  void aRecordFileOverSixteenMebibytesIsNotParsed() throws Exception {
    Path huge = tmp.resolve("huge.json");
    try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
      f.setLength(16L * 1024 * 1024 + 1); // sparse: reading more than the limit would be the bug
    }
    Result r = gate(Map.of(), huge.toString());
    assertThat(r.code()).isZero();
    assertNoStackTrace(r);
    assertThat(r.err()).startsWith("::error::record file " + huge + " is larger than the limit of 16,777,216 bytes"
        + " (16 MiB)\n");
    assertThat(r.err().lines().skip(1)).hasSize(3)
        .allMatch(l -> l.startsWith("::warning file=tests/e2e/test_fsdp_short.py,title=ci-gate-error::"));
    assertThat(r.out()).contains("| `train/grad_norm` | - | ERROR |  |  |  | the record is unreadable: record file");
  }

  @Test
  void aStepSummaryThatWouldExceedOneMebibyteIsCutToItWithANote() throws Exception {
    Path summary = tmp.resolve("summary.md");
    Files.writeString(summary, "earlier step output\n");
    Result r = gate(Map.of("GITHUB_STEP_SUMMARY", summary.toString()), record(99_990).toString()); // + 3 reward points
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEqualTo(TITO_MISSING);
    String text = Files.readString(summary);
    assertThat(text.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024 * 1024);
    assertThat(text).startsWith("earlier step output\n### CI Gate (shadow)")
        .endsWith(" rows omitted, see the JSON artifact._\n").contains("\n_… truncated: ");
    // standard output carries the verdict line only when the summary goes to the file
    assertThat(r.out()).startsWith("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: ERROR (99993 coordinates:")
        .doesNotContain("### CI Gate");
  }

  @Test
  void aFullStepSummaryFileGetsNothingMoreAndAWarning() throws Exception {
    Path summary = tmp.resolve("summary.md");
    Files.writeString(summary, "x".repeat(1024 * 1024 - 10));
    Result r = gate(Map.of("GITHUB_STEP_SUMMARY", summary.toString()), "examples/gate/nightly-1.json");
    assertThat(r.code()).isZero();
    assertThat(r.err()).startsWith("::warning::the step summary file already holds 1048566 bytes of GitHub's 1 MiB;");
    assertThat(Files.size(summary)).isEqualTo(1024 * 1024 - 10);
  }

  @Test
  void theSummaryOnStandardOutputIsBoundedToo() throws Exception {
    Result r = gate(Map.of(), record(99_990).toString());
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEqualTo(TITO_MISSING);
    assertThat(r.out().getBytes(StandardCharsets.UTF_8).length).isLessThan(1024 * 1024 + 1000);
    assertThat(r.out()).endsWith(" rows omitted, see the JSON artifact._\n");
  }

  @Test
  void aCommentBodyStaysWithinSixtyFiveThousandCharacters() throws Exception {
    Path body = tmp.resolve("comment.md");
    Result r = gate(Map.of(), record(5_000).toString(), "--comment-body", body.toString());
    assertThat(r.code()).isZero();
    String text = Files.readString(body);
    assertThat(text.length()).isLessThanOrEqualTo(65_536);
    assertThat(text).startsWith("### CI Gate (shadow)").endsWith(" rows omitted, see the JSON artifact._\n");
  }

  // ------------------------------------------------------------------------------------- idempotent writes

  private static final Map<String, String> ACTIONS = Map.of("GITHUB_RUN_ID", "7001", "GITHUB_RUN_ATTEMPT", "1",
      "GITHUB_REPOSITORY", "acme/train", "GITHUB_SHA", "c0ffee1");

  @Test
  void aRetriedBaselineWriteStoresNothingNew() throws Exception {
    Result first = gate(ACTIONS, "examples/gate/nightly-1.json", "--write-baseline");
    assertThat(first.code()).isZero();
    assertThat(first.out()).contains("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: wrote baseline\n");
    byte[] after = Files.readAllBytes(tmp.resolve("history.json"));
    Result retry = gate(ACTIONS, "examples/gate/nightly-1.json", "--write-baseline", "--created-at",
        "2026-11-30T00:00:00Z");
    assertThat(retry.code()).isZero();
    assertThat(retry.out()).contains("[CI Gate][baseline] tests/e2e/test_fsdp_short.py: baseline already written by"
        + " CI run acme/train#7001 attempt 1 (run 1); nothing new written\n");
    assertThat(Files.readAllBytes(tmp.resolve("history.json"))).isEqualTo(after);
    JsonNode run = JSON.readTree(after).get("runs").get(0);
    assertThat(run.get("ci_run_id").asText()).isEqualTo("7001");
    assertThat(run.get("ci_attempt").asInt()).isEqualTo(1);
    assertThat(run.get("ci_repository").asText()).isEqualTo("acme/train");
    // a re-run of the CI run (attempt 2) whose first attempt's write landed is the same measurement
    Result rerun = gate(Map.of("GITHUB_RUN_ID", "7001", "GITHUB_RUN_ATTEMPT", "2", "GITHUB_REPOSITORY",
        "acme/train"), "examples/gate/nightly-2.json", "--write-baseline", "--json");
    JsonNode json = JSON.readTree(rerun.out());
    assertThat(json.get("action").asText()).isEqualTo("duplicate_write");
    assertThat(json.get("run_id").asInt()).isEqualTo(1);
    assertThat(JSON.readTree(tmp.resolve("history.json").toFile()).get("runs")).hasSize(1);
  }

  @Test
  void aBaselineWriteWithoutTheRunIdentityIsAnError() {
    Result r = gate(Map.of(), "examples/gate/nightly-1.json", "--write-baseline");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::--write-baseline needs the CI run's identity so that a retried write"
        + " stores nothing new: pass --ci-run-id (or set GITHUB_RUN_ID), and optionally --ci-run-attempt"
        + " (GITHUB_RUN_ATTEMPT, default 1) and --ci-repository (GITHUB_REPOSITORY)\n");
    assertThat(tmp.resolve("history.json")).doesNotExist();
    Result badAttempt = gate(Map.of(), "examples/gate/nightly-1.json", "--write-baseline", "--ci-run-id", "1",
        "--ci-run-attempt", "0");
    assertThat(badAttempt.code()).isEqualTo(1);
    assertThat(badAttempt.err()).isEqualTo("::error::the attempt of CI run 1 must be at least 1, got 0\n");
    Result badId = gate(Map.of("GITHUB_RUN_ID", "1\n::set-output name=x::y"), "examples/gate/nightly-1.json",
        "--write-baseline");
    assertThat(badId.code()).isEqualTo(1);
    assertThat(badId.err()).startsWith("::error::CI run id '1\\u000a::set-output").doesNotContain("\n::set-output");
    // a shadow run writes nothing and needs no identity
    assertThat(gate(Map.of(), "examples/gate/nightly-1.json").code()).isZero();
  }
}

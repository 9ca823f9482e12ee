package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code ci-policy concurrency} contract: JSON inputs, text and JSON output, located errors. */
class ConcurrencyCommandTest {
  private static final Path REPO = Path.of("../..").toAbsolutePath().normalize();
  private static final String POLICY = "examples/policies/miles.yaml";
  private static final String IN_FLIGHT = """
      [
        {"run_id": "1001", "workflow": "pr-test", "pr_number": 123},
        {"run_id": "1002", "workflow": "pr-test-rocm", "pr_number": 123},
        {"run_id": "1003", "workflow": "pr-test", "pr_number": 124, "cron": null, "release_ref": ""},
        {"run_id": 1004, "workflow": "pr-test", "cron": "0 15 * * 0-5"}
      ]
      """;

  @TempDir
  Path tmp;

  private record Result(int code, String out, String err) {}

  private Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = CiPolicyCli.run(args, Map.of(), REPO, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private String file(String name, String content) {
    try {
      Path p = tmp.resolve(name);
      Files.writeString(p, content);
      return p.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Result concurrency(String event, String inFlight, String... extra) {
    List<String> args = new ArrayList<>(List.of("concurrency", "--policy", POLICY,
        "--event-json", file("event.json", event), "--in-flight-json", file("in-flight.json", inFlight)));
    args.addAll(List.of(extra));
    return run(args.toArray(String[]::new));
  }

  @Test
  void aClosedPrCancelsItsRunsInEveryWorkflowAndOnlyCancels() {
    Result r = concurrency("{\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr_number\":123,\"run_id\":\"9000\"}",
        IN_FLIGHT);
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).isEqualTo(""
        + "cancel 1001: pull request #123 was closed: closed ends every in-flight run of the PR in every declared"
        + " workflow (group 'pr-test-123')\n"
        + "cancel 1002: pull request #123 was closed: closed ends every in-flight run of the PR in every declared"
        + " workflow (group 'pr-test-rocm-123')\n"
        + "keep 1003: a run of workflow pr-test for PR #124 in group 'pr-test-124', not of PR #123\n"
        + "keep 1004: a run of workflow pr-test for schedule '0 15 * * 0-5' in group 'pr-test-0 15 * * 0-5', not of"
        + " PR #123\n"
        + "new run cancellation_only in group 'pr-test-123'\n");
  }

  @Test
  void jsonOutputCarriesTheWholeDecision() throws Exception {
    Result r = concurrency("{\"type\":\"superseded\",\"workflow\":\"pr-test\",\"pr_number\":124,\"run_id\":9000,"
        + "\"label\":\"run-ci-megatron\",\"cron\":null,\"release_ref\":\"\"}", IN_FLIGHT, "--json");
    assertThat(r.code()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    List<String> fields = new ArrayList<>();
    json.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("group_key", "new_run", "runs", "explanation");
    assertThat(json.get("group_key").asText()).isEqualTo("pr-test-124");
    assertThat(json.get("new_run").asText()).isEqualTo("start");
    assertThat(json.get("runs")).hasSize(4);
    assertThat(json.get("runs").get(2).toString()).isEqualTo("{\"run_id\":\"1003\",\"action\":\"cancel\",\"reason\":"
        + "\"same group 'pr-test-124': workflow pr-test cancels in-progress runs of the same group on"
        + " superseded events\"}");
    assertThat(json.get("runs").get(0).get("action").asText()).isEqualTo("keep");
    assertThat(json.get("explanation").get("decision").asText())
        .isEqualTo("new run start in group 'pr-test-124', cancel 1 of 4 in-flight runs");
  }

  @Test
  void aLabelIrrelevantToCiIsIgnored() {
    Result r = concurrency("{\"type\":\"superseded\",\"workflow\":\"pr-test\",\"pr_number\":123,\"run_id\":\"9000\","
        + "\"label\":\"documentation\"}", IN_FLIGHT);
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("keep 1001: label 'documentation' is not a canonical CI label, so the label event"
        + " starts no run and cancels nothing\n");
    assertThat(r.out()).endsWith("new run ignored in group 'pr-test-123'\n");
    assertThat(r.out()).doesNotContain("cancel 1");
  }

  @Test
  void anEmptyInFlightListIsFine() {
    Result r = concurrency("{\"type\":\"dispatched\",\"workflow\":\"pr-test-rocm\",\"run_id\":\"9000\"}", "[]");
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("new run start in group 'pr-test-rocm-9000'\n");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // event JSON | the message after '::error::<event file>'
      "{\"type\":\"closed\",\"workflow\":\"docs\",\"pr_number\":1,\"run_id\":\"9\"}"
          + "|!Unknown CI workflow 'docs'; expected one of [pr-test, pr-test-rocm]",
      "{\"type\":\"scheduled\",\"workflow\":\"pr-test\",\"cron\":\"0 3 * * *\",\"run_id\":\"9\"}"
          + "|!No CI policy is defined for schedule: 0 3 * * *",
      "{\"type\":\"reopened\",\"workflow\":\"pr-test\",\"run_id\":\"9\"}"
          + "|: type: unknown event type 'reopened'; expected one of [closed, dispatched, merged, scheduled, superseded]",
      "{\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr_number\":\"abc\",\"run_id\":\"9\"}"
          + "|: pr_number: expected a positive integer, found a string ('abc')",
      "{\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr_number\":-4,\"run_id\":\"9\"}"
          + "|: pr_number: expected a positive integer, found -4",
      "{\"type\":\"closed\",\"workflow\":\"pr-test\",\"run_id\":\"9\"}"
          + "|: a closed event needs a PR number",
      "{\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr_number\":1}"
          + "|: run_id: missing required field",
      "{\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr_number\":1,\"run_id\":true}"
          + "|: run_id: expected a run id (a string or an integer), found a boolean (true)",
      "{\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr\":1,\"run_id\":\"9\"}"
          + "|: pr: unknown field 'pr'; expected one of [cron, label, pr_number, release_ref, run_id, type, workflow]",
      "{\"type\":\"dispatched\",\"workflow\":\"pr-test\",\"release_ref\":\"release/v1\",\"run_id\":\"9\"}"
          + "|: a dispatched event: release ref 'release/v1' is not a full git ref; expected e.g."
          + " refs/heads/release/v0.5 or refs/tags/v0.5.0",
      "[1]|: expected an object, found an array",
      "{\"type\":\"closed\",\"type\":\"merged\"}|:1:24: malformed JSON: Duplicate field 'type'",
      "{\"type\": }|:1:10: malformed JSON: Unexpected character ('}' (code 125)): expected a valid value",
      "{} {}|:1:4: malformed JSON: unexpected content after the end of the value",
      "''|: the file is empty; expected JSON"})
  void eventErrorsNameTheFileAndTheField(String event, String message) {
    Result r = concurrency(event, "[]");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    String expected = message.startsWith("!") ? message.substring(1) : tmp.resolve("event.json") + message;
    assertThat(r.err()).startsWith("::error::" + expected.strip());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{}|: expected an array of in-flight runs, found an object",
      "[{\"run_id\":\"1\",\"workflow\":\"pr-test\"},{\"run_id\":\"x\",\"workflow\":\"pr-test\"}]"
          + "|: [1]: an in-flight run: run id 'x' is not a GitHub Actions run id; expected a positive decimal number",
      "[{\"run_id\":\"1\"}]|: [0].workflow: missing required field",
      "[{\"run_id\":\"1\",\"workflow\":\"pr-test\",\"branch\":\"main\"}]"
          + "|: [0].branch: unknown field 'branch'; expected one of [cron, pr_number, release_ref, run_id, workflow]",
      "[{\"run_id\":\"1\",\"workflow\":\"pr-test\",\"cron\":5}]|: [0].cron: expected a string or null, found an integer (5)",
      "[\"1\"]|: [0]: expected an object, found a string ('1')",
      "[{\"run_id\":\"1\",\"workflow\":\"pr-test\"},{\"run_id\":1,\"workflow\":\"pr-test\"}]|!in-flight run 1 is listed twice"})
  void inFlightErrorsNameTheFileAndTheEntry(String inFlight, String message) {
    Result r = concurrency("{\"type\":\"closed\",\"workflow\":\"pr-test\",\"pr_number\":1,\"run_id\":\"9\"}", inFlight);
    assertThat(r.code()).isEqualTo(1);
    String expected = message.startsWith("!") ? message.substring(1) : tmp.resolve("in-flight.json") + message;
    assertThat(r.err()).isEqualTo("::error::" + expected + "\n");
  }

  @Test
  void aMissingFileIsAnError() {
    Result r = run("concurrency", "--policy", POLICY, "--event-json", "nope.json", "--in-flight-json", "nope.json");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::cannot read event file " + REPO.resolve("nope.json") + ": no such file\n");
  }

  @Test
  void usageErrorsExitTwo() {
    assertThat(run("concurrency", "--policy", POLICY).code()).isEqualTo(2);
    Result r = run("concurrency", "--policy", POLICY, "--event-json", "e.json");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("Missing required option: '--in-flight-json=FILE'");
  }
}

package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code ci-policy resolve} contract: flags, environment fallback, output file, errors. */
class ResolveCommandTest {
  private static final Path REPO = Path.of("../..").toAbsolutePath().normalize();
  private static final String POLICY = "examples/policies/miles.yaml";

  @TempDir
  Path tmp;

  private record Result(int code, String out, String err) {}

  private Result run(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = CiPolicyCli.run(args, env, REPO, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Result resolve(String... extra) {
    List<String> args = new ArrayList<>(List.of("resolve", "--policy", POLICY));
    args.addAll(List.of(extra));
    return run(Map.of(), args.toArray(String[]::new));
  }

  @Test
  void readmeCommandResolvesTheWeeklySchedule() {
    Result r = resolve("--event-name", "schedule", "--schedule", "0 15 * * 6");
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo(
        "Resolved CI policy: cadence=weekly labels=[] bypass_fastfail=true skipped_stages=[]\n");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void appendsExactlyFourLinesAndKeepsExistingContent() throws Exception {
    Path output = tmp.resolve("github_output");
    Files.writeString(output, "previous=value\n");
    Result r = resolve("--event-name", "pull_request", "--pr-labels-json",
        "[\"run-ci-megatron\",\"bypass-fastfail\",\"documentation\"]", "--github-output", output.toString());
    assertThat(r.code()).isZero();
    assertThat(Files.readAllBytes(output)).isEqualTo(("previous=value\n"
        + "cadence=regular\n"
        + "raw_labels=run-ci-megatron bypass-fastfail\n"
        + "bypass_fastfail=true\n"
        + "skipped_stages=[]\n").getBytes(StandardCharsets.UTF_8));
    assertThat(r.out()).isEqualTo("Resolved CI policy: cadence=regular labels=[run-ci-megatron bypass-fastfail]"
        + " bypass_fastfail=true skipped_stages=[]\n");
  }

  @Test
  void fallsBackToTheGithubActionsEnvironment() throws Exception {
    Path output = tmp.resolve("out");
    Map<String, String> env = new HashMap<>();
    env.put("EVENT_NAME", "pull_request");
    env.put("PR_LABELS_JSON", "[\"nightly\"]");
    env.put("SCHEDULE", "");
    env.put("CADENCE_OVERRIDE", "");
    env.put("GITHUB_OUTPUT", output.toString());
    Result r = run(env, "resolve", "--policy", POLICY);
    assertThat(r.code()).isZero();
    assertThat(Files.readString(output)).isEqualTo(
        "cadence=nightly\nraw_labels=nightly\nbypass_fastfail=true\nskipped_stages=[]\n");
  }

  @Test
  void aFlagBeatsItsEnvironmentVariable() {
    Result r = run(Map.of("EVENT_NAME", "push", "CADENCE_OVERRIDE", "release"),
        "resolve", "--policy", POLICY, "--cadence-override", "weekly");
    assertThat(r.out()).startsWith("Resolved CI policy: cadence=weekly ");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "schedule|--schedule|0 15 * * *|No CI policy is defined for schedule: 0 15 * * *; the schedule table has the"
          + " crons ['0 15 * * 0-5', '0 15 * * 6'] (a cron must match an entry exactly, spaces included)",
      "push|--schedule||unsupported trigger: the policy has no rule for event 'push'; it declares the events"
          + " [pull_request, schedule, workflow_dispatch] (add an events entry for it, or pass a cadence override)",
      "pull_request|--pr-labels-json|{\"a\":1}|PR labels were not a JSON string array",
      "pull_request|--cadence-override|hourly|Unknown CI cadence 'hourly'; expected one of [nightly, regular, release, weekly]"})
  void errorsGoToStderrExitOneAndWriteNothing(String event, String flag, String value, String message)
      throws Exception {
    Path output = tmp.resolve("out");
    Files.writeString(output, "keep\n");
    Result r = resolve("--event-name", event, flag, value == null ? "" : value, "--github-output", output.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::" + message + "\n");
    assertThat(r.out()).isEmpty();
    assertThat(Files.readString(output)).isEqualTo("keep\n");
  }

  @Test
  void anInvalidPolicyIsAnErrorWithItsLocation() throws Exception {
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, "name: x\ncadences:\n  regular: {admit_nightly_tests: maybe}\n");
    Result r = run(Map.of(), "resolve", "--policy", bad.toString(), "--event-name", "workflow_dispatch");
    assertThat(r.code()).isEqualTo(1);
    String file = Console.escapeProperty(bad.toString());
    assertThat(r.err()).isEqualTo("::error file=" + file + ",line=3,col=34,title=cadences::expected true or false,"
        + " found a string\n"
        + "::error file=" + file + ",line=3,col=12,title=cadences::missing required field 'bypass_fastfail'\n"
        + "::error file=" + file + ",line=3,col=12,title=cadences::missing required field 'write_baseline'\n");
  }

  @Test
  void aMissingPolicyFileIsAnError() {
    Result r = run(Map.of(), "resolve", "--policy", "nope.yaml", "--event-name", "schedule");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::cannot read policy file " + REPO.resolve("nope.yaml") + ": no such file\n");
  }

  @Test
  void usageErrorsExitTwo() {
    assertThat(run(Map.of(), "resolve").code()).isEqualTo(2);
    assertThat(run(Map.of(), "resolve", "--policy", POLICY, "--bogus").code()).isEqualTo(2);
    Result r = run(Map.of(), "frobnicate");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("Unmatched argument");
  }

  @Test
  void noEventNameIsAnError() {
    Result r = run(Map.of(), "resolve", "--policy", POLICY);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::no event name: pass --event-name or set EVENT_NAME or GITHUB_EVENT_NAME\n");
  }

  @Test
  void warningsAreAnnotations() {
    Result r = run(Map.of(), "resolve", "--policy", POLICY, "--cadence-override", "regular", "--event-name", "x");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void jsonOutputCarriesTheWholeDecision() throws Exception {
    Result r = resolve("--event-name", "pull_request", "--pr-labels-json",
        "[\"run-ci-image\",\"run-ci-long\",\"run-ci-long\"]", "--json");
    assertThat(r.code()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    List<String> fields = new ArrayList<>();
    json.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("cadence", "raw_labels", "include_labels", "admit_nightly_tests",
        "bypass_fastfail", "write_baseline", "skipped_stages", "warnings", "explanation");
    assertThat(json.get("raw_labels").toString()).isEqualTo("[\"run-ci-image\",\"run-ci-long\",\"run-ci-long\"]");
    assertThat(json.get("include_labels")).hasSize(17);
    assertThat(json.get("include_labels").get(0).asText()).isEqualTo("amd");
    assertThat(json.get("admit_nightly_tests").asBoolean()).isFalse();
    assertThat(json.get("write_baseline").asBoolean()).isFalse();
    assertThat(json.get("explanation").get("decision").asText()).isEqualTo("cadence=regular scope=image included 17 of 19 labels");
    assertThat(json.get("explanation").get("hints").toString())
        .isEqualTo("[\"adding run-ci-ft-short would include ft-short\",\"adding run-ci-ft-long would include ft-long\"]");
  }

  private Path diffFile(String... fields) throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (String f : fields) {
      out.writeBytes(f.getBytes(StandardCharsets.UTF_8));
      out.write(0);
    }
    Path p = tmp.resolve("changed.bin");
    Files.write(p, out.toByteArray());
    return p;
  }

  @Test
  void pullRequestsSkipIrrelevantStagesFromTheDiff() throws Exception {
    Path output = tmp.resolve("out");
    Path diff = diffFile("M", "tests/e2e/test_lora.py", "M", "docs/guide.md");
    Result r = resolve("--event-name", "pull_request", "--pr-labels-json", "[\"run-ci-lora\"]", "--changed-files",
        diff.toString(), "--registrations", "examples/registrations/miles.yaml", "--github-output", output.toString());
    assertThat(r.code()).isZero();
    assertThat(Files.readString(output)).isEqualTo("cadence=regular\nraw_labels=run-ci-lora\nbypass_fastfail=false\n"
        + "skipped_stages=[\"stage-b-2-gpu-h200\",\"stage-c-2-gpu-h200\",\"stage-c-4-gpu-mi350\",\"stage-c-8-gpu-b200\","
        + "\"stage-c-8-gpu-h100\",\"stage-c-8-gpu-h200\"]\n");
  }

  @Test
  void theChangedFilesPathComesFromTheEnvironmentToo() throws Exception {
    Path diff = diffFile("M", "docs/guide.md");
    Result r = run(Map.of("EVENT_NAME", "pull_request", "PR_LABELS_JSON", "[\"run-ci-all\"]", "CHANGED_FILES_PATH",
        diff.toString()), "resolve", "--policy", POLICY, "--registrations", "examples/registrations/miles.yaml", "--json");
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("skipped_stages")).isEmpty();
    assertThat(json.get("stages")).hasSize(7);
    assertThat(json.get("stages").get(0).get("reason").asText()).isEqualTo("label run-ci-all requests every runnable stage");
  }

  @Test
  void scheduledRunsAndUnusableDiffsSkipNothing() throws Exception {
    Path diff = diffFile("M", "docs/guide.md");
    Result scheduled = resolve("--event-name", "schedule", "--schedule", "0 15 * * 0-5", "--changed-files", diff.toString(),
        "--registrations", "examples/registrations/miles.yaml");
    assertThat(scheduled.out()).endsWith("skipped_stages=[]\n");
    Path bad = tmp.resolve("bad.bin");
    Files.write(bad, "M\0docs/guide.md".getBytes(StandardCharsets.UTF_8));
    Result unusable = resolve("--event-name", "pull_request", "--pr-labels-json", "[]", "--changed-files", bad.toString(),
        "--registrations", "examples/registrations/miles.yaml", "--json");
    JsonNode json = new ObjectMapper().readTree(unusable.out());
    assertThat(json.get("skipped_stages")).isEmpty();
    assertThat(json.get("stages").get(0).get("reason").asText())
        .isEqualTo("fail-open: the diff is unusable (the diff is not NUL-terminated), so nothing is pruned");
  }

  @Test
  void checkComparesAWorkflowsCronsWithTheSchedule() throws Exception {
    Result ok = run(Map.of(), "check", "--policy", POLICY, "--workflow", "examples/workflows/pr-test.yml");
    assertThat(ok.code()).isZero();
    assertThat(ok.out()).startsWith("Workflow examples/workflows/pr-test.yml schedules 2 cron(s), each with a policy.");
    Path wf = tmp.resolve("wf.yml");
    Files.writeString(wf, "on:\n  schedule:\n    - cron: '0 15 * * 0-5'\n");
    Result missing = run(Map.of(), "check", "--policy", POLICY, "--workflow", wf.toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).isEqualTo("::error file=" + Console.escapeProperty(wf.toString())
        + ",title=policy-cron-not-scheduled::policy cron '0 15 * * 6' (weekly) is not scheduled by the"
        + " workflow, so that cadence never runs\n");
    Files.writeString(wf, "on:\n  schedule: nightly\n");
    assertThat(run(Map.of(), "check", "--policy", POLICY, "--workflow", wf.toString()).err())
        .isEqualTo("::error::workflow " + wf + ": on.schedule must be a list of {cron: ...}\n");
  }

  @Test
  void checkValidatesThePolicy() {
    Result r = run(Map.of(), "check", "--policy", POLICY);
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("Policy miles is valid: 19 labels, 4 cadences, 2 schedules, 3 backends, 12 suites,"
        + " 0 warnings\n");
  }
}

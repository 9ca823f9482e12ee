package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the README promises a newcomer holds: its short policy passes {@code check} and resolves, its first
 * quick-start command prints the line the README quotes, and its getting-started paths name files that exist.
 */
class ReadmeTest {
  private static final Path README = CliTestSupport.REPO.resolve("README.md");

  @TempDir Path tmp;

  private static String readme() throws IOException {
    return Files.readString(README, StandardCharsets.UTF_8);
  }

  /** The first YAML block of the README: the whole policy of a small service. */
  private static String shortPolicy() throws IOException {
    Matcher m = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(readme());
    assertThat(m.find()).as("the README shows a policy in a yaml block").isTrue();
    return m.group(1);
  }

  @Test
  void theShortPolicyHasFifteenLinesAndPassesCheck() throws IOException {
    String policy = shortPolicy();
    assertThat(policy.lines().count()).isEqualTo(15);
    Path file = tmp.resolve("policy.yaml");
    Files.writeString(file, policy, StandardCharsets.UTF_8);
    CliTestSupport.Result r = CliTestSupport.run("check", "--policy", file.toString());
    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Policy my-service is valid").contains("3 suites");
  }

  @Test
  void theShortPolicysSuitesAreTheProjectsOwnNamesAndResolve() throws IOException {
    Path file = tmp.resolve("policy.yaml");
    Files.writeString(file, shortPolicy(), StandardCharsets.UTF_8);
    Path diff = tmp.resolve("diff.bin");
    Files.writeString(diff, "M\0docs/guide.md\0", StandardCharsets.UTF_8);
    Path registrations = tmp.resolve("tests.yaml");
    Files.writeString(registrations, """
        - {file: src/test/java/OrderTest.java, backend: jvm, suite: unit-tests, est_time: 20}
        - {file: src/it/java/OrderIT.java, backend: jvm, suite: integration, est_time: 300}
        - {file: e2e/test_inference.py, backend: cuda, suite: e2e-gpu, est_time: 900, labels: [db]}
        """, StandardCharsets.UTF_8);
    CliTestSupport.Result r = CliTestSupport.run(Map.of(), "resolve", "--policy", file.toString(),
        "--registrations", registrations.toString(), "--event-name", "pull_request",
        "--pr-labels-json", "[]", "--changed-files", diff.toString(),
        "--github-output=", "--step-summary=");
    assertThat(r.err()).isEmpty();
    assertThat(r.out().strip()).isEqualTo("Resolved CI policy: cadence=regular labels=[]"
        + " bypass_fastfail=false skipped_stages=[\"e2e-gpu\"]");
    CliTestSupport.Result labelled = CliTestSupport.run(Map.of(), "resolve", "--policy", file.toString(),
        "--registrations", registrations.toString(), "--event-name", "pull_request",
        "--pr-labels-json", "[\"run-ci-db\"]", "--changed-files", diff.toString(),
        "--github-output=", "--step-summary=");
    assertThat(labelled.out().strip()).as("the label requests the GPU test, so the stage runs")
        .isEqualTo("Resolved CI policy: cadence=regular labels=[run-ci-db] bypass_fastfail=false skipped_stages=[]");
  }

  @Test
  void theFirstQuickStartCommandPrintsTheQuotedLine() throws IOException {
    String text = readme();
    assertThat(text).contains("./ci-policy resolve --policy examples/policies/miles.yaml --event-name schedule"
        + " --schedule '0 15 * * 6'\n./mvnw verify\n");
    CliTestSupport.Result r = CliTestSupport.run(Map.of(), "resolve", "--policy", "examples/policies/miles.yaml",
        "--event-name", "schedule", "--schedule", "0 15 * * 6", "--github-output=", "--step-summary=");
    assertThat(r.code()).isZero();
    String line = r.out().strip();
    assertThat(text).contains("(`" + line + "`)");
  }

  @Test
  void theGettingStartedPathsNameFilesThatExist() throws IOException {
    String text = readme();
    for (String path : new String[] {"action.yml", "examples/workflows", "examples/gate/gates.yaml",
        "examples/gate/pr-regression.json", "docs/queue.md", "docs/gate.md", "docs/cli.md", "schemas"}) {
      assertThat(text).contains(path);
      assertThat(CliTestSupport.REPO.resolve(path)).exists();
    }
  }
}

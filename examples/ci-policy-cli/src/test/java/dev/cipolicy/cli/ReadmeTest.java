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

  /** The README's gate command, its continuation lines joined, without the leading {@code ./ci-policy}. */
  private static String[] gateCommand() throws IOException {
    Matcher m = Pattern.compile("```sh\n\\s*(\\./ci-policy gate .*?)```", Pattern.DOTALL).matcher(readme());
    assertThat(m.find()).as("the README shows the gate command in a sh block").isTrue();
    String command = m.group(1).replaceAll("\\\\\n\\s*", "").strip();
    assertThat(command).doesNotContain("\n");
    return command.substring("./ci-policy ".length()).split(" ");
  }

  @Test
  void theGatePathPrintsVerdictsOnAFreshCloneAndWritesNothing() throws IOException {
    String[] args = gateCommand();
    assertThat(String.join(" ", args)).isEqualTo("gate --policy examples/policies/miles.yaml --gates"
        + " examples/gate/gates.yaml --registrations examples/registrations/miles.yaml --test-file"
        + " tests/e2e/test_fsdp_short.py --record examples/gate/pr-regression.json --history"
        + " examples/gate/history.json");
    Path history = CliTestSupport.REPO.resolve("examples/gate/history.json");
    byte[] before = Files.readAllBytes(history);
    CliTestSupport.Result r = CliTestSupport.run(Map.of(), args);
    assertThat(r.code()).as(r.err()).isZero();
    String verdict = r.out().lines().findFirst().orElseThrow();
    // the shipped history holds trusted runs: real verdicts, not a cold start, and the README quotes the line
    assertThat(verdict).isEqualTo("[CI Gate][shadow] tests/e2e/test_fsdp_short.py: FAIL (6 coordinates: 3 PASS,"
        + " 2 FAIL, 1 ERROR; 2 regressions; run untrusted)");
    assertThat(readme()).contains("(`" + verdict + "`)");
    assertThat(r.err().lines().toList()).hasSize(3).allMatch(l -> l.startsWith("::warning file=tests/e2e/"));
    assertThat(Files.readAllBytes(history)).as("a shadow run writes nothing").isEqualTo(before);

    // the README's --fail-on regression: exit 1, each regression an ::error
    String[] failing = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
        java.util.stream.Stream.of("--fail-on", "regression")).toArray(String[]::new);
    assertThat(readme()).contains("add `--fail-on regression` and it exits 1");
    CliTestSupport.Result blocked = CliTestSupport.run(Map.of(), failing);
    assertThat(blocked.code()).isEqualTo(1);
    assertThat(blocked.err().lines().filter(l -> l.startsWith("::error ")).count()).isEqualTo(2);
  }

  @Test
  void theGettingStartedPathsNameFilesThatExist() throws IOException {
    String text = readme();
    for (String path : new String[] {"action.yml", "examples/workflows", "examples/gate/gates.yaml",
        "examples/gate/pr-regression.json", "examples/gate/history.json", "docs/queue.md", "docs/gate.md", "docs/cli.md", "schemas"}) {
      assertThat(text).contains(path);
      assertThat(CliTestSupport.REPO.resolve(path)).exists();
    }
  }
}

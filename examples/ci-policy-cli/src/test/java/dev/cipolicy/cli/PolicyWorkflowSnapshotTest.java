package dev.cipolicy.cli;

import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.testkit.doubles.CommandScript;
import dev.cipolicy.testkit.doubles.FrozenEnvironment;
import dev.cipolicy.testkit.snapshot.LauncherSnapshotExtension;
import dev.cipolicy.testkit.snapshot.LauncherSnapshotTest;
import dev.cipolicy.testkit.snapshot.LauncherSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Golden files of the CLI's outputs ({@code resolve}, {@code plan-suite}, {@code file-run} and the GitHub
 * output file) for a matrix of events on the reference policy: {@link PolicyWorkflow}'s commands are
 * answered by the real CLI, in process, in the repository root.
 */
class PolicyWorkflowSnapshotTest {
  /** The PR diffs, as {@code git diff --name-status -z -M} prints them, by entrypoint. */
  static final Map<String, String> DIFFS = Map.of(
      "pullRequestWithoutLabels", "M\0tests/e2e/test_lora.py\0",
      "pullRequestWithLabels", "M\0miles/backends/megatron/train.py\0R100\0docs/old.md\0docs/new.md\0",
      "pullRequestDocsOnly", "M\0docs/lora.md\0A\0README.md\0",
      "pullRequestRunAll", "M\0pyproject.toml\0");

  @RegisterExtension
  static final LauncherSnapshotExtension SNAPSHOTS = LauncherSnapshotExtension.of(
      LauncherSnapshots.of(PolicyWorkflow.class, PolicyWorkflow::new)
          .goldenDirectory(Path.of("src/test/resources/golden/policy-workflow"))
          .environment(FrozenEnvironment.builder()
              .set("GITHUB_OUTPUT", "<SANDBOX>/github_output")
              .set("CHANGED_FILES_PATH", "<SANDBOX>/changed-files")
              .build())
          .script(CommandScript.builder()
              .respond(CommandScript.program("ci-policy"), (node, command) -> cli(command.arguments()))
              .recordOutputs(true)
              .build())
          .prepareSandbox((c, sandbox) -> {
            String diff = DIFFS.get(c.entrypoint().name());
            if (diff != null) {
              Files.writeString(sandbox.resolve("changed-files"), diff, StandardCharsets.UTF_8);
            }
          })
          .captureSandboxFiles("github_output")
          .build());

  @LauncherSnapshotTest
  void matchesItsGoldenFile() {}

  private static CommandResult cli(java.util.List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = CiPolicyCli.run(args.toArray(String[]::new), Map.of(), CliTestSupport.REPO,
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new CommandResult(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}

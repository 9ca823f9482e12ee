package dev.cipolicy.cli;

import dev.cipolicy.api.suite.FileRunDecision;
import dev.cipolicy.api.suite.FileRunPlan;
import dev.cipolicy.api.suite.Permission;
import dev.cipolicy.core.FileRunPlanner;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ci-policy file-run}: plans a {@code /rerun-test} of one registered test file. */
@Command(
    name = "file-run",
    mixinStandardHelpOptions = true,
    description = {"Plans the rerun of one test file: hw, suite, runner labels, container image, timeout.",
        "Give the file with --test-file, or the whole comment with --comment and the commenter's --permission."})
final class FileRunCommand extends PolicyCommand {
  @Option(names = "--registrations", required = true, paramLabel = "FILE", description = "The registration manifest.")
  private @Nullable String registrations;

  @ArgGroup(exclusive = true, multiplicity = "1")
  private @Nullable Target target;

  static final class Target {
    @Option(names = "--test-file", paramLabel = "PATH", description = "The repository-relative test file.")
    @Nullable String testFile;

    @Option(names = "--comment", paramLabel = "TEXT", description = "The PR comment, e.g. '/rerun-test tests/e2e/test_x.py'.")
    @Nullable String comment;
  }

  @Option(names = "--permission", paramLabel = "LEVEL", description = "With --comment: the commenter's permission"
      + " (admin, maintain, write, triage, read, none).")
  private @Nullable String permission;

  @Option(names = "--pr-number", paramLabel = "N", description = "The pull request (for the concurrency group).")
  private @Nullable Long prNumber;

  @Option(names = "--image-tag", paramLabel = "TAG", description = "The CI image tag (default: the policy's).")
  private @Nullable String imageTag;

  @Option(names = "--github-output", paramLabel = "FILE", description = "Appends hw, suite, runs_on, container_image,"
      + " timeout_seconds [GITHUB_OUTPUT].")
  private @Nullable String githubOutput;

  @Option(names = "--json", description = "Print one JSON object.")
  private boolean json;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    Target t = Objects.requireNonNull(target);
    FileRunPlanner planner = FileRunPlanner.of(Inputs.loadRegistry(c, loaded, Objects.requireNonNull(registrations)));
    FileRunDecision decision;
    if (t.comment != null) {
      if (permission == null || prNumber == null) {
        throw new Inputs.InputException("--comment needs --permission and --pr-number");
      }
      Permission p;
      try {
        p = Permission.valueOf(permission.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new Inputs.InputException("unknown permission '" + permission
            + "'; expected one of admin, maintain, write, triage, read, none");
      }
      decision = planner.decideComment(t.comment, p, prNumber, Optional.ofNullable(imageTag));
    } else {
      decision = planner.planFile(Objects.requireNonNull(t.testFile), Optional.ofNullable(imageTag),
          Optional.ofNullable(prNumber));
    }
    if (decision.plan().isEmpty()) {
      c.console().error(decision.message());
      return CiPolicyCli.EXIT_ERROR;
    }
    FileRunPlan plan = decision.plan().get();
    String outputPath = Inputs.flagOrEnv(githubOutput, c.environment(), "GITHUB_OUTPUT").orElse("");
    if (!outputPath.isEmpty()) {
      Map<String, String> values = new LinkedHashMap<>();
      values.put("hw", plan.hw());
      values.put("suite", plan.suite());
      values.put("runs_on", GithubFormats.array(plan.runsOn()));
      values.put("container_image", plan.containerImage());
      values.put("timeout_seconds", String.valueOf(plan.timeoutSeconds()));
      Inputs.appendOutput(c.resolvePath(outputPath), GithubFormats.outputBlock(values));
    }
    if (json) {
      printJson(c, toJson(plan));
    } else {
      c.console().line("Rerun " + plan.file() + ": hw=" + plan.hw() + " suite=" + plan.suite() + " runs_on="
          + GithubFormats.array(plan.runsOn()) + " container_image=" + plan.containerImage() + " timeout_seconds="
          + plan.timeoutSeconds());
    }
    return 0;
  }


  static Map<String, Object> toJson(FileRunPlan plan) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("hw", plan.hw());
    m.put("suite", plan.suite());
    m.put("runs_on", plan.runsOn());
    m.put("container_image", plan.containerImage());
    m.put("timeout_seconds", plan.timeoutSeconds());
    m.put("file", plan.file());
    m.put("concurrency_group", plan.concurrencyGroup());
    return m;
  }
}

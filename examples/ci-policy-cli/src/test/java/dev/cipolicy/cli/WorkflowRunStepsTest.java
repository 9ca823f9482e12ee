package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.workflow.load.WorkflowLoader;
import dev.cipolicy.workflow.Step;
import dev.cipolicy.workflow.Workflow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the {@code run:} step of {@code examples/workflows/pr-test.yml} the way the runner does: the step's
 * script is executed by {@code bash --noprofile --norc -eo pipefail} in a shallow clone made as
 * {@code actions/checkout} with {@code fetch-depth: 2} makes it (the PR's merge commit and its two parents),
 * with only the variables the runner sets. The {@code ./ci-policy} wrapper in the clone is a shim that
 * records its arguments; the recorded command is then run in-process in the clone with the same
 * environment, and the four {@code $GITHUB_OUTPUT} lines are checked.
 */
class WorkflowRunStepsTest {
  private static final Path WORKFLOW = CliTestSupport.REPO.resolve("examples/workflows/pr-test.yml");
  private static final String EVERY_STAGE_BUT_LORA = "[\"stage-b-2-gpu-h200\",\"stage-c-2-gpu-h200\","
      + "\"stage-c-4-gpu-mi350\",\"stage-c-8-gpu-b200\",\"stage-c-8-gpu-h100\",\"stage-c-8-gpu-h200\"]";

  @TempDir
  static Path repos;

  private static Path prClone;
  private static Path mainClone;

  @TempDir
  Path runner;

  /** A repository with a base commit, a later base commit, a PR commit and the PR's merge commit. */
  @BeforeAll
  static void repositories() throws Exception {
    Path origin = Files.createDirectories(repos.resolve("origin"));
    PullRequestRepository.init(origin,
        List.of(CliTestSupport.POLICY, CliTestSupport.REGISTRATIONS, "examples/workflows/pr-test.yml"));
    PullRequestRepository.commitHistory(origin);
    prClone = shallowClone(origin, "pull-1-merge", "pr");
    mainClone = shallowClone(origin, "main", "main");
  }

  private static Path shallowClone(Path origin, String branch, String name) throws Exception {
    Path clone = repos.resolve(name);
    // a file:// URL, so that --depth applies as it does over the network
    PullRequestRepository.git(repos, "clone", "-q", "--depth", "2", "--branch", branch, origin.toUri().toString(), clone.toString());
    assertThat(PullRequestRepository.git(clone, "rev-parse", "--is-shallow-repository").strip()).isEqualTo("true");
    Path shim = clone.resolve("ci-policy");
    Files.writeString(shim, "#!/bin/sh\nprintf '%s\\0' \"$@\" > .ci-policy-argv\n");
    assertThat(shim.toFile().setExecutable(true)).isTrue();
    return clone;
  }

  private static String exec(ProcessBuilder pb, String what) throws Exception {
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finishes", what).isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("%s: %s", what, text).isZero();
    return text;
  }

  /** The steps of the {@code resolve-ci-policy} job, as the workflow model reads them. */
  private static List<Step> policySteps() throws IOException {
    Workflow w = WorkflowLoader.load(WORKFLOW.toString(), Files.readString(WORKFLOW));
    return w.job("resolve-ci-policy").orElseThrow().steps();
  }

  /** The {@code resolve} step of the {@code resolve-ci-policy} job. */
  private static Step resolveStep() throws IOException {
    return policySteps().stream().filter(s -> s.id().equals(Optional.of("resolve"))).findFirst()
        .orElseThrow(() -> new AssertionError("no step with id 'resolve' in " + WORKFLOW));
  }

  private record Run(int code, String out, String err, String githubOutput, boolean diffWritten) {}

  /** Runs the step in {@code checkout} for an event with the payload, as the runner would. */
  private Run runStep(Path checkout, String event, String payloadFixture) throws Exception {
    Path payload = runner.resolve("event.json");
    Files.copy(ResolveRunnerEnvironmentTest.EVENTS.resolve(payloadFixture), payload,
        StandardCopyOption.REPLACE_EXISTING);
    Path output = runner.resolve("github_output");
    Files.writeString(output, "");
    Map<String, String> env = new HashMap<>();
    env.put("CI", "true");
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_EVENT_NAME", event);
    env.put("GITHUB_EVENT_PATH", payload.toString());
    env.put("GITHUB_OUTPUT", output.toString());
    env.put("GITHUB_WORKSPACE", checkout.toString());
    env.put("RUNNER_TEMP", runner.toString());
    Files.deleteIfExists(checkout.resolve("changed-files.bin"));
    Files.deleteIfExists(checkout.resolve(".ci-policy-argv"));

    Path script = runner.resolve("step.sh");
    // the step's script as written: the shell text the runner hands to bash
    Files.writeString(script, resolveStep().run().orElseThrow());
    ProcessBuilder pb = new ProcessBuilder("bash", "--noprofile", "--norc", "-eo", "pipefail", script.toString())
        .directory(checkout.toFile()).redirectErrorStream(true);
    String path = System.getenv("PATH");
    pb.environment().clear();
    pb.environment().put("PATH", path == null ? "/usr/bin:/bin" : path);
    pb.environment().put("HOME", runner.toString());
    pb.environment().putAll(env);
    exec(pb, "the workflow's run: step");
    boolean diffWritten = Files.exists(checkout.resolve("changed-files.bin"));

    String[] argv = Files.readString(checkout.resolve(".ci-policy-argv")).split("\0");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = CiPolicyCli.run(argv, env, checkout, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
        Files.readString(output), diffWritten);
  }

  @Test
  void theStepNeedsNoEnvBlockAndChecksOutTwoCommits() throws IOException {
    assertThat(resolveStep().env()).isEmpty();
    Step checkout = policySteps().get(0);
    assertThat(checkout.uses()).hasValueSatisfying(u -> assertThat(u).startsWith("actions/checkout@"));
    assertThat(checkout.with()).containsEntry("fetch-depth", "2");
  }

  @Test
  void aLabelledPullRequestIsPrunedByTheDiffOfItsMergeCommit() throws Exception {
    Run r = runStep(prClone, "pull_request", "pull_request-labeled.json");
    assertThat(r.diffWritten()).isTrue();
    // only the PR's two documentation files, not the base branch's later code change
    assertThat(Files.readString(prClone.resolve("changed-files.bin")))
        .isEqualTo("M\0docs/guide.md\0A\0docs/new page.md\0");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.githubOutput()).isEqualTo("cadence=regular\nraw_labels=run-ci-lora bypass-fastfail\n"
        + "bypass_fastfail=true\nskipped_stages=" + EVERY_STAGE_BUT_LORA + "\n");
  }

  @Test
  void aPullRequestWithoutALabelsKeySkipsEveryStageForADocsChange() throws Exception {
    Run r = runStep(prClone, "pull_request", "pull_request-no-labels-key.json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.githubOutput()).isEqualTo("cadence=regular\nraw_labels=\nbypass_fastfail=false\nskipped_stages="
        + "[\"stage-b-2-gpu-h200\",\"stage-c-2-gpu-h200\",\"stage-c-4-gpu-h200\",\"stage-c-4-gpu-mi350\","
        + "\"stage-c-8-gpu-b200\",\"stage-c-8-gpu-h100\",\"stage-c-8-gpu-h200\"]\n");
  }

  @Test
  void draftAndForkPullRequestsResolveTheSameWay() throws Exception {
    Run draft = runStep(prClone, "pull_request", "pull_request-draft.json");
    assertThat(draft.code()).as(draft.err()).isZero();
    assertThat(draft.githubOutput()).startsWith("cadence=regular\nraw_labels=\nbypass_fastfail=false\n");
    Run fork = runStep(prClone, "pull_request", "pull_request-fork.json");
    assertThat(fork.code()).as(fork.err()).isZero();
    assertThat(fork.githubOutput()).startsWith("cadence=regular\nraw_labels=run-ci-megatron\nbypass_fastfail=false\n");
  }

  @Test
  void aScheduledRunWritesNoDiffAndResolvesItsCron() throws Exception {
    Run r = runStep(mainClone, "schedule", "schedule-weekly.json");
    assertThat(r.diffWritten()).isFalse();
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.githubOutput()).isEqualTo("cadence=weekly\nraw_labels=\nbypass_fastfail=true\nskipped_stages=[]\n");
  }

  @Test
  void aManualRunWritesNoDiffAndResolvesRegular() throws Exception {
    Run r = runStep(mainClone, "workflow_dispatch", "workflow_dispatch.json");
    assertThat(r.diffWritten()).isFalse();
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.githubOutput()).isEqualTo("cadence=regular\nraw_labels=\nbypass_fastfail=false\nskipped_stages=[]\n");
  }

  @Test
  void theOldThreeDotDiffHasNoMergeBaseInATwoCommitClone() throws Exception {
    // what the earlier snippet ran after fetching the base branch at depth 1: a shallow clone has no merge base
    ProcessBuilder pb = new ProcessBuilder("git", "diff", "--name-status", "-z", "-M", "HEAD^1...HEAD^2")
        .directory(prClone.toFile()).redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isNotZero();
    assertThat(out).contains("no merge base");
  }
}

package dev.cipolicy.cli;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.LaunchPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ci-policy} steps of the PR test workflow ({@code examples/workflows/pr-test.yml}) for one
 * trigger each, written as a launcher: the policy job runs {@code ci-policy resolve}, reads the GitHub
 * output file, and every stage job that was not skipped runs {@code ci-policy plan-suite}; a
 * {@code /rerun-test} comment runs {@code ci-policy file-run}. Its snapshot test answers the commands with
 * the real CLI, in process, so the golden files hold the CLI's outputs and the GitHub output file for a
 * matrix of events on the reference policy.
 */
public final class PolicyWorkflow {
  /** The stage jobs of the workflow, in order, with their backend. */
  static final Map<String, String> STAGES = new LinkedHashMap<>();

  static {
    STAGES.put("stage-a-cpu", "cpu");
    STAGES.put("stage-b-cpu", "cpu");
    STAGES.put("stage-b-2-gpu-h200", "cuda");
    STAGES.put("stage-c-8-gpu-h100", "cuda");
    STAGES.put("stage-c-8-gpu-h200", "cuda");
    STAGES.put("stage-c-4-gpu-h200", "cuda");
    STAGES.put("stage-c-2-gpu-h200", "cuda");
    STAGES.put("stage-c-8-gpu-b200", "cuda");
    STAGES.put("stage-c-4-gpu-mi350", "rocm");
  }

  private static final String POLICY = "examples/policies/miles.yaml";
  private static final String REGISTRATIONS = "examples/registrations/miles.yaml";

  private final LaunchPorts ports;

  /**
   * The workflow on its ports.
   *
   * @param ports the ports
   */
  public PolicyWorkflow(LaunchPorts ports) {
    this.ports = ports;
  }

  /** A pull request without labels that changes one registered test. */
  public void pullRequestWithoutLabels() throws IOException {
    run("pull_request", List.of("--pr-labels-json", "[]"), false);
  }

  /** A pull request labelled run-ci-megatron and bypass-fastfail that changes library code. */
  public void pullRequestWithLabels() throws IOException {
    run("pull_request", List.of("--pr-labels-json", "[\"run-ci-megatron\", \"bypass-fastfail\"]"), false);
  }

  /** A pull request labelled run-ci-lora that changes documentation only: every GPU stage is skipped. */
  public void pullRequestDocsOnly() throws IOException {
    run("pull_request", List.of("--pr-labels-json", "[\"run-ci-lora\"]"), false);
  }

  /** A pull request labelled run-ci-all. */
  public void pullRequestRunAll() throws IOException {
    run("pull_request", List.of("--pr-labels-json", "[\"run-ci-all\"]"), false);
  }

  /** The nightly schedule. */
  public void nightlySchedule() throws IOException {
    run("schedule", List.of("--schedule", "0 15 * * 0-5"), false);
  }

  /** Saturday's weekly schedule. */
  public void weeklySchedule() throws IOException {
    run("schedule", List.of("--schedule", "0 15 * * 6"), false);
  }

  /** A cron the schedule table does not know: an error, nothing written. */
  public void unknownSchedule() throws IOException {
    run("schedule", List.of("--schedule", "0 3 * * *"), false);
  }

  /** A manual dispatch: regular cadence, GPU stages match every label. */
  public void manualDispatch() throws IOException {
    run("workflow_dispatch", List.of(), true);
  }

  /** A release validation: a manual dispatch with the cadence overridden to release. */
  public void releaseDispatch() throws IOException {
    run("workflow_dispatch", List.of("--cadence-override", "release"), true);
  }

  /** An event the policy has no rule for: an error. */
  public void unsupportedEvent() throws IOException {
    run("push", List.of(), false);
  }

  /** {@code /rerun-test} of a registered test by a collaborator with write access. */
  public void rerunComment() {
    rerun("/rerun-test tests/e2e/test_lora.py", "write");
  }

  /** {@code /rerun-test} by a commenter with read access only: refused. */
  public void rerunCommentWithoutPermission() {
    rerun("/rerun-test tests/e2e/test_lora.py", "read");
  }

  /** {@code /rerun-test} of a disabled test: refused with the reason. */
  public void rerunDisabledTest() {
    rerun("/rerun-test tests/e2e/test_replay.py", "admin");
  }

  private void rerun(String comment, String permission) {
    ports.executor().run(Command.of("ci-policy", "file-run", "--policy", POLICY, "--registrations", REGISTRATIONS,
        "--comment", comment, "--permission", permission, "--pr-number", "42", "--image-tag", "pr-42",
        "--github-output", githubOutput().toString()));
  }

  private void run(String event, List<String> flags, boolean matchAllLabels) throws IOException {
    List<String> resolve = new ArrayList<>(List.of("ci-policy", "resolve", "--policy", POLICY, "--registrations",
        REGISTRATIONS, "--event-name", event));
    resolve.addAll(flags);
    Path changed = ports.files().resolve(ports.environment().getOrDefault("CHANGED_FILES_PATH", "changed-files"));
    if (ports.files().isRegularFile(changed)) {
      resolve.addAll(List.of("--changed-files", changed.toString()));
    }
    resolve.addAll(List.of("--github-output", githubOutput().toString()));
    CommandResult resolved = ports.executor().run(Command.of(resolve));
    if (!resolved.succeeded()) {
      return;
    }
    Map<String, String> outputs = new LinkedHashMap<>();
    for (String line : ports.files().readString(githubOutput()).split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        outputs.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    String skipped = outputs.getOrDefault("skipped_stages", "[]");
    for (Map.Entry<String, String> stage : STAGES.entrySet()) {
      if (skipped.contains("\"" + stage.getKey() + "\"")) {
        continue;
      }
      List<String> plan = new ArrayList<>(List.of("ci-policy", "plan-suite", "--policy", POLICY, "--registrations",
          REGISTRATIONS, "--hw", stage.getValue(), "--suite", stage.getKey(), "--cadence", outputs.get("cadence"),
          "--labels", outputs.getOrDefault("raw_labels", "")));
      if (matchAllLabels && !stage.getValue().equals("cpu")) {
        plan.add("--match-all-labels");
      }
      ports.executor().run(Command.of(plan));
    }
  }

  private Path githubOutput() {
    return ports.files().resolve(ports.environment().get("GITHUB_OUTPUT").orElseThrow());
  }
}

package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.cipolicy.cli.CliTestSupport.Result;
import dev.cipolicy.cli.WorkflowHarness.JobRun;
import dev.cipolicy.cli.WorkflowHarness.StepRun;
import dev.cipolicy.cli.WorkflowHarness.WorkflowRun;
import dev.cipolicy.workflow.load.WorkflowLoader;
import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.ExprValue;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobOutcome;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.Step;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowSimulator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every example workflow under {@code examples/workflows}, for every event it declares, run step by step as
 * the runner runs it ({@link WorkflowHarness}): real {@code bash}, a real {@code git clone --depth} of a
 * repository whose pull request ref is a merge commit, the composite {@code action.yml} of the repository
 * root, and the CLI as a separate {@code java -jar} process. The CLI jar is a manifest-only jar whose
 * class path is this module's build output and dependencies; the composite action gets it as its
 * {@code jar} input (instead of downloading {@code version}), and the repository's {@code ./ci-policy}
 * wrapper in the cloned repository runs it too.
 *
 * <p>What a workflow declares (its events, activity types and crons, its concurrency, the reusable workflows
 * it calls) is read through the workflow model ({@link WorkflowLoader}), not from the YAML tree, and the
 * model's {@link WorkflowSimulator}, given each run's event and the outputs its jobs set, must agree with the
 * harness on which jobs run.
 */
class ExampleWorkflowsHarnessTest {
  private static final Path WORKFLOWS = CliTestSupport.REPO.resolve("examples/workflows");
  private static final Path EVENTS = ResolveRunnerEnvironmentTest.EVENTS;
  private static final String ALL_STAGES = "[\"stage-b-2-gpu-h200\",\"stage-c-2-gpu-h200\",\"stage-c-4-gpu-h200\","
      + "\"stage-c-4-gpu-mi350\",\"stage-c-8-gpu-b200\",\"stage-c-8-gpu-h100\",\"stage-c-8-gpu-h200\"]";
  private static final String ALL_BUT_C4 = "[\"stage-b-2-gpu-h200\",\"stage-c-2-gpu-h200\","
      + "\"stage-c-4-gpu-mi350\",\"stage-c-8-gpu-b200\",\"stage-c-8-gpu-h100\",\"stage-c-8-gpu-h200\"]";

  @TempDir
  static Path shared;

  private static Path cliJar;
  private static Path quickJava;
  private static String origin;

  @TempDir
  Path scratch;

  /**
   * One run of a workflow: the event, its payload fixture, the four {@code $GITHUB_OUTPUT} lines of its
   * resolve step (empty when nothing may run) and the jobs that run.
   */
  record Scenario(String workflow, String event, String fixture, String outputs, List<String> jobsRun,
      String group, String action) {
    Scenario(String workflow, String event, String fixture, String outputs, List<String> jobsRun, String group) {
      this(workflow, event, fixture, outputs, jobsRun, group, "");
    }

    @Override
    public String toString() {
      return workflow + " " + event + " " + fixture + (action.isEmpty() ? "" : " as " + action);
    }

    String ref() {
      return event.equals("pull_request") ? "pull-1-merge" : "main";
    }
  }

  private static String lines(String cadence, String labels, boolean bypass, String skipped) {
    return "cadence=" + cadence + "\nraw_labels=" + labels + "\nbypass_fastfail=" + bypass + "\nskipped_stages="
        + skipped + "\n";
  }

  static Stream<Scenario> scenarios() {
    List<Scenario> all = new ArrayList<>();
    String labeled = lines("regular", "run-ci-lora bypass-fastfail", true, ALL_BUT_C4);
    String noLabels = lines("regular", "", false, ALL_STAGES);
    // megatron's suites in stage-c-4-gpu-mi350 and stage-c-8-gpu-h100 are not scoped to paths: they run
    String fork = lines("regular", "run-ci-megatron", false, "[\"stage-b-2-gpu-h200\",\"stage-c-2-gpu-h200\","
        + "\"stage-c-4-gpu-h200\",\"stage-c-8-gpu-b200\",\"stage-c-8-gpu-h200\"]");
    // of the odd names only the prefixed ones are requests; an unknown one is passed on, not fatal
    String odd = lines("regular", "run-ci-fsdp run-ci-not-a-label", false, ALL_BUT_C4);
    String lora = lines("regular", "run-ci-lora", false, ALL_BUT_C4);
    String nightly = lines("nightly", "", true, "[]");
    String weekly = lines("weekly", "", true, "[]");
    String regular = lines("regular", "", false, "[]");
    String release = lines("release", "", true, "[]");
    for (String wf : List.of("pr-test.yml", "pr-test-action.yml")) {
      boolean stage = wf.equals("pr-test-action.yml");
      String policy = stage ? "policy" : "resolve-ci-policy";
      List<String> withStage = stage ? List.of(policy, "stage-c-4-gpu-h200") : List.of(policy);
      List<String> policyOnly = List.of(policy);
      all.add(new Scenario(wf, "pull_request", "pull_request-labeled.json", labeled, withStage, "pr-test-101"));
      all.add(new Scenario(wf, "pull_request", "pull_request-no-labels-key.json", noLabels, policyOnly, "pr-test-102"));
      all.add(new Scenario(wf, "pull_request", "pull_request-draft.json", noLabels, policyOnly, "pr-test-103"));
      all.add(new Scenario(wf, "pull_request", "pull_request-fork.json", fork, policyOnly, "pr-test-104"));
      all.add(new Scenario(wf, "pull_request", "pull_request-odd-labels.json", odd, withStage, "pr-test-107"));
      all.add(new Scenario(wf, "pull_request", "pull_request-synchronize.json", lora, withStage, "pr-test-108"));
      all.add(new Scenario(wf, "pull_request", "pull_request-closed.json", "", List.of(), "pr-test-109"));
      all.add(new Scenario(wf, "schedule", "schedule-nightly.json", nightly, withStage, "pr-test-0 15 * * 0-5"));
      all.add(new Scenario(wf, "schedule", "schedule-weekly.json", weekly, withStage, "pr-test-0 15 * * 6"));
      all.add(new Scenario(wf, "workflow_dispatch", "workflow_dispatch.json", regular, withStage, "pr-test-4200000001"));
      all.add(new Scenario(wf, "workflow_dispatch", "workflow_dispatch-empty-cadence.json", regular, withStage,
          "pr-test-4200000001"));
      all.add(new Scenario(wf, "workflow_dispatch", "workflow_dispatch-cadence.json", release, withStage,
          "pr-test-4200000001"));
    }
    // the reusable workflow, called from a pull request into a release branch: release cadence, pruned by the diff
    String releasePr = lines("release", "", true, ALL_STAGES);
    for (String action : List.of("opened", "synchronize", "reopened", "labeled")) {
      all.add(new Scenario("pr-release.yml", "pull_request", "pull_request-release.json", releasePr,
          List.of("policy", "report"), "pr-release-110", action));
    }
    all.add(new Scenario("pr-release.yml", "pull_request", "pull_request-release.json", "", List.of(),
        "pr-release-110", "closed"));
    return all.stream();
  }

  /** A manifest-only jar running this module's classes; the repository with a merge commit for the PR. */
  @BeforeAll
  static void cliAndRepository() throws Exception {
    cliJar = shared.resolve("ci-policy-cli.jar");
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, CiPolicyCli.class.getName());
    String classPath = Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        .filter(s -> !s.isEmpty())
        .map(s -> Path.of(s).toAbsolutePath().toUri().toString())
        .collect(Collectors.joining(" "));
    m.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
    try (OutputStream out = Files.newOutputStream(cliJar); JarOutputStream jar = new JarOutputStream(out, m)) {
      jar.flush();
    }

    Path repo = Files.createDirectories(shared.resolve("origin"));
    List<String> files = new ArrayList<>(List.of(CliTestSupport.POLICY, CliTestSupport.REGISTRATIONS, "action.yml"));
    try (Stream<Path> s = Files.list(WORKFLOWS)) {
      // the files only: examples/workflows/model/ holds the workflow model's examples, not runnable ones
      s.filter(Files::isRegularFile).forEach(p -> files.add("examples/workflows/" + p.getFileName()));
    }
    PullRequestRepository.init(repo, files);
    // a short-lived CLI JVM: the action's java input and the wrapper below use it (the machine is shared)
    quickJava = shared.resolve("java-quick");
    Files.writeString(quickJava, "#!/bin/sh\nexec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \"$@\"\n");
    assertThat(quickJava.toFile().setExecutable(true)).isTrue();
    // the repository's ./ci-policy builds the CLI with Maven on first use; here it runs the module's classes
    PullRequestRepository.write(repo, "ci-policy", "#!/usr/bin/env bash\nexec '" + quickJava + "' -jar '" + cliJar + "' \"$@\"\n");
    assertThat(repo.resolve("ci-policy").toFile().setExecutable(true)).isTrue();
    PullRequestRepository.commitHistory(repo);
    origin = repo.toUri().toString();
  }

  private WorkflowHarness harness(String ref, Map<String, String> inputs, Map<String, String> env) {
    Map<String, String> all = new LinkedHashMap<>(Map.of("java", quickJava.toString()));
    all.putAll(inputs);
    return new WorkflowHarness(WORKFLOWS, origin, ref, scratch, all, env);
  }

  private static Map<String, String> jarInput() {
    return Map.of("jar", cliJar.toString(), "version", "");
  }

  /** The scenario's payload: its fixture, with the webhook action replaced when the scenario names one. */
  private Path payload(Scenario s) throws IOException {
    Path fixture = EVENTS.resolve(s.fixture());
    if (s.action().isEmpty()) {
      return fixture;
    }
    ObjectMapper json = new ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode p = (com.fasterxml.jackson.databind.node.ObjectNode)
        json.readTree(fixture.toFile());
    p.put("action", s.action());
    Path out = Files.createTempFile(scratch, "event-", ".json");
    json.writeValue(out.toFile(), p);
    return out;
  }

  private static String action(Scenario s) throws IOException {
    return s.action().isEmpty()
        ? new ObjectMapper().readTree(EVENTS.resolve(s.fixture()).toFile()).path("action").asText() : s.action();
  }

  private WorkflowRun run(Scenario s) throws Exception {
    return run(s, payload(s));
  }

  private WorkflowRun run(Scenario s, Path payload) throws Exception {
    return harness(s.ref(), jarInput(), Map.of()).run(WORKFLOWS.resolve(s.workflow()), s.event(), payload);
  }

  /** An example workflow as the workflow model reads it. */
  private static Workflow model(Path file) throws IOException {
    return WorkflowLoader.load(file.toString(), Files.readString(file));
  }

  private static Workflow model(String file) throws IOException {
    return model(WORKFLOWS.resolve(file));
  }

  /** The model's scenario for a run: the event with its whole payload, and the outputs the run's jobs set. */
  private static dev.cipolicy.workflow.Scenario modelScenario(Scenario s, Path payload, WorkflowRun run)
      throws IOException {
    Object tree = new ObjectMapper().readValue(payload.toFile(), Object.class);
    dev.cipolicy.workflow.Scenario scenario = dev.cipolicy.workflow.Scenario.of(new Event(s.event(),
        Optional.empty(), Optional.empty(), Map.of(), List.of(), Optional.of(ExprValue.fromTree(tree))));
    for (JobRun job : run.jobs().values()) {
      for (Map.Entry<String, String> o : job.outputs().entrySet()) {
        scenario = scenario.withOutput(job.id(), o.getKey(), o.getValue());
      }
    }
    return scenario;
  }

  private static List<String> succeeded(Simulation simulation) {
    return simulation.jobs().stream().filter(j -> j.result() == JobResult.SUCCESS).map(JobOutcome::job).toList();
  }

  private static String describe(WorkflowRun run) {
    StringBuilder sb = new StringBuilder();
    for (StepRun s : run.steps()) {
      sb.append("\n--- ").append(s.job()).append(" / ").append(s.step()).append(" exit ").append(s.exitCode())
          .append('\n').append(s.log());
    }
    return sb.toString();
  }

  /** The step that ran {@code ci-policy resolve}: the one whose outputs name a cadence. */
  private static StepRun resolveStep(WorkflowRun run) {
    return run.steps().stream().filter(s -> s.githubOutput().startsWith("cadence=")).findFirst()
        .orElseThrow(() -> new AssertionError("no step wrote the resolve outputs" + describe(run)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void everyScenarioRunsEveryStepAsTheRunnerDoes(Scenario s) throws Exception {
    Path payload = payload(s);
    WorkflowRun run = run(s, payload);
    assertThat(run.triggered()).as("the workflow runs on this event").isTrue();
    assertThat(run.failures()).as("failing steps%s", describe(run)).isEmpty();
    assertThat(run.concurrencyGroup()).isEqualTo(s.group());
    List<String> ran = run.jobs().values().stream().filter(j -> j.result().equals("success"))
        .map(JobRun::id).toList();
    assertThat(ran).as("jobs that ran%s", describe(run)).isEqualTo(s.jobsRun());
    // the workflow model, told the event and the outputs the jobs set, runs the same jobs and skips the others
    Simulation model = WorkflowSimulator.of(model(s.workflow())).simulate(modelScenario(s, payload, run));
    assertThat(succeeded(model)).as("the model's jobs: %s", model.jobs()).isEqualTo(s.jobsRun());
    assertThat(model.jobs()).as("the model's jobs")
        .allMatch(j -> j.result() == JobResult.SUCCESS || j.result() == JobResult.SKIPPED);
    if (s.outputs().isEmpty()) {
      assertThat(run.steps()).as("no step runs").isEmpty();
      return;
    }
    StepRun resolve = resolveStep(run);
    assertThat(resolve.githubOutput()).as(describe(run)).isEqualTo(s.outputs());
    assertThat(resolve.summary()).as("the step summary").contains("### CI policy: ");
    // the policy job's outputs are the step's, through the job's (and the action's) outputs: mappings
    Map<String, String> expected = WorkflowHarness.parseOutputs(s.outputs());
    assertThat(run.jobs().get(s.jobsRun().get(0)).outputs()).isEqualTo(expected);
  }

  @Test
  void everyEventTypeAndCronOfEveryExampleWorkflowHasAScenario() throws Exception {
    List<Scenario> scenarios = scenarios().toList();
    ObjectMapper json = new ObjectMapper();
    try (Stream<Path> files = Files.list(WORKFLOWS)) {
      for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
        String name = file.getFileName().toString();
        for (Trigger trigger : model(file).triggers()) {
          String event = trigger.event();
          if (event.equals("workflow_call")) {
            // run through its callers: some scenario's workflow calls it
            assertThat(scenarios).as("a caller of %s", name).anyMatch(sc -> calls(sc.workflow(), name));
            continue;
          }
          List<String> wanted = new ArrayList<>(trigger.types());
          wanted.addAll(trigger.crons());
          List<String> covered = new ArrayList<>();
          for (Scenario sc : scenarios) {
            if (sc.workflow().equals(name) && sc.event().equals(event)) {
              covered.add(event.equals("schedule")
                  ? json.readTree(EVENTS.resolve(sc.fixture()).toFile()).path("schedule").asText() : action(sc));
            }
          }
          assertThat(covered).as("scenarios of %s on %s", name, event).isNotEmpty().containsAll(wanted);
        }
      }
    }
  }

  private static boolean calls(String workflow, String called) {
    try {
      return model(workflow).jobs().stream()
          .anyMatch(j -> j.call().filter(c -> c.local() && c.uses().equals("./.github/workflows/" + called)).isPresent());
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aClosedPullRequestOnlyCancelsInThePolicysConcurrencyGroup() throws Exception {
    Path event = scratch.resolve("closed.json");
    Files.writeString(event, "{\"type\": \"closed\", \"workflow\": \"pr-test\", \"pr_number\": 109, \"run_id\": \"9000\"}");
    Path inFlight = scratch.resolve("in-flight.json");
    Files.writeString(inFlight, "[{\"run_id\": \"8000\", \"workflow\": \"pr-test\", \"pr_number\": 109}]");
    Result decision = CliTestSupport.run(Map.of(), "concurrency", "--policy", CliTestSupport.POLICY, "--event-json",
        event.toString(), "--in-flight-json", inFlight.toString());
    assertThat(decision.code()).as(decision.err()).isZero();
    assertThat(decision.out()).startsWith("cancel 8000: ")
        .endsWith("new run cancellation_only in group 'pr-test-109'\n");
    for (String wf : List.of("pr-test.yml", "pr-test-action.yml")) {
      Scenario closed = new Scenario(wf, "pull_request", "pull_request-closed.json", "", List.of(), "");
      Path payload = payload(closed);
      WorkflowRun run = run(closed, payload);
      assertThat(run.triggered()).isTrue();
      // the workflow's group is the policy's, and with cancel-in-progress the closing run cancels the PR's run
      assertThat(run.concurrencyGroup()).isEqualTo("pr-test-109");
      Workflow model = model(wf);
      assertThat(model.concurrency().orElseThrow().cancelInProgress()).isEqualTo("true");
      assertThat(model.trigger("pull_request").orElseThrow().types()).contains("closed");
      assertThat(run.steps()).isEmpty();
      assertThat(run.jobs().values()).allMatch(j -> j.result().equals("skipped"));
      // in the model no job runs on a closed pull request, whatever any job would do: exhaustive mode finds
      // no job that runs and so could fail, and gives the one all-skipped simulation
      List<Simulation> every = WorkflowSimulator.of(model).exhaustive(modelScenario(closed, payload, run));
      assertThat(every).hasSize(1);
      assertThat(every.get(0).jobs()).as("%s", every.get(0).jobs()).isNotEmpty()
          .allMatch(j -> j.result() == JobResult.SKIPPED);
    }
  }

  @Test
  void everyWorkflowThatSchedulesPassesTheCronCheck() throws Exception {
    int scheduling = 0;
    try (Stream<Path> files = Files.list(WORKFLOWS)) {
      for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
        boolean schedules = model(file).trigger("schedule").isPresent();
        Result r = CliTestSupport.run(Map.of(), "check", "--policy", CliTestSupport.POLICY, "--workflow",
            file.toString());
        if (schedules) {
          scheduling++;
          assertThat(r.code()).as(r.err()).isZero();
          assertThat(r.out()).contains("schedules 2 cron(s), each with a policy.");
        } else {
          // a workflow that never runs on a schedule is not where the policy's crons are checked
          assertThat(r.code()).isEqualTo(1);
        }
      }
    }
    assertThat(scheduling).isEqualTo(2);
  }

  /** The diff files the action wrote under any job's {@code $RUNNER_TEMP} in this test. */
  private List<Path> diffFiles() throws IOException {
    try (Stream<Path> s = Files.walk(scratch)) {
      return s.filter(p -> p.getFileName().toString().equals("ci-policy-changed-files.bin")).toList();
    }
  }

  @Test
  void theActionDiffsThePullRequestsMergeCommitAndNothingForOtherEvents() throws Exception {
    WorkflowRun schedule = harness("main", jarInput(), Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"),
        "schedule", EVENTS.resolve("schedule-weekly.json"));
    assertThat(schedule.failures()).as(describe(schedule)).isEmpty();
    WorkflowRun dispatch = harness("main", jarInput(), Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"),
        "workflow_dispatch", EVENTS.resolve("workflow_dispatch-cadence.json"));
    assertThat(dispatch.failures()).as(describe(dispatch)).isEmpty();
    assertThat(diffFiles()).isEmpty();
    WorkflowRun pr = harness("pull-1-merge", jarInput(), Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"),
        "pull_request", EVENTS.resolve("pull_request-labeled.json"));
    assertThat(pr.failures()).as(describe(pr)).isEmpty();
    List<Path> diffs = diffFiles();
    assertThat(diffs).hasSize(1);
    // only the PR's two documentation files, not the base branch's later change to miles/core.py
    assertThat(Files.readString(diffs.get(0))).isEqualTo("M\0docs/guide.md\0A\0docs/new page.md\0");
  }

  @Test
  void theActionFailsClearlyWhenTheCheckoutHasNoParent() throws Exception {
    Path wf = scratch.resolve("shallow.yml");
    Files.writeString(wf, Files.readString(WORKFLOWS.resolve("pr-test-action.yml"))
        .replace("          fetch-depth: 2\n", "          fetch-depth: 1\n"));
    WorkflowRun run = harness("pull-1-merge", jarInput(), Map.of()).run(wf, "pull_request",
        EVENTS.resolve("pull_request-labeled.json"));
    assertThat(run.failures()).hasSize(1);
    assertThat(run.failures().get(0).log()).isEqualTo("::error::ci-policy action: HEAD^1 is missing: check out the"
        + " pull request with actions/checkout and fetch-depth: 2, so that the merge commit's parents are present\n");
    assertThat(run.jobs().get("policy").result()).isEqualTo("failure");
    assertThat(run.jobs().get("stage-c-4-gpu-h200").result()).isEqualTo("skipped");
  }

  /**
   * The action as another repository uses it from a tag or commit, with neither {@code version} nor {@code jar}:
   * the checkout holds this repository's tracked files, the action builds the CLI from them with the Maven
   * wrapper (offline, on this machine's Maven repository), and a second run restores the jar from
   * {@code actions/cache} and builds nothing.
   */
  @Test
  void withoutVersionAndJarTheActionBuildsTheCliFromItsOwnCheckoutOnceThenUsesTheCache() throws Exception {
    Path source = Files.createDirectories(scratch.resolve("source-origin"));
    String tracked = WorkflowHarness.git(CliTestSupport.REPO, List.of("git", "ls-files", "-z"));
    List<String> files = Stream.of(tracked.split("\0")).filter(f -> !f.isEmpty())
        .filter(f -> Files.isRegularFile(CliTestSupport.REPO.resolve(f))).toList();
    PullRequestRepository.init(source, files);
    assertThat(source.resolve("mvnw").toFile().setExecutable(true)).isTrue();
    // the stage job's ./ci-policy would build the CLI a second time (with the full analysis): as in the other
    // origin it runs the module's classes; only the action's own build is under test here
    PullRequestRepository.write(source, "ci-policy", "#!/usr/bin/env bash\nexec '" + quickJava + "' -jar '" + cliJar
        + "' \"$@\"\n");
    assertThat(source.resolve("ci-policy").toFile().setExecutable(true)).isTrue();
    PullRequestRepository.commitHistory(source);
    Path m2 = Path.of(System.getProperty("user.home"), ".m2");
    // the harness gives each step a fresh HOME: Maven is pointed at this machine's wrapper and repository
    Map<String, String> env = Map.of("MAVEN_USER_HOME", m2.toString(),
        "MAVEN_ARGS", "-o -Dmaven.repo.local=" + m2.resolve("repository"));
    Map<String, String> inputs = Map.of("java", quickJava.toString());
    WorkflowHarness first = new WorkflowHarness(WORKFLOWS, source.toUri().toString(), "main", scratch, inputs, env);
    WorkflowRun built = first.run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule",
        EVENTS.resolve("schedule-weekly.json"));
    assertThat(built.failures()).as(describe(built)).isEmpty();
    assertThat(resolveStep(built).githubOutput()).isEqualTo(lines("weekly", "", true, "[]"));
    assertThat(resolveStep(built).log()).contains("ci-policy action: building the CLI from the action's sources");
    assertThat(first.cacheEvents()).singleElement().asString().startsWith("miss ci-policy-cli-Linux-");

    WorkflowHarness second = new WorkflowHarness(WORKFLOWS, source.toUri().toString(), "main", scratch, inputs, env);
    WorkflowRun cached = second.run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule",
        EVENTS.resolve("schedule-nightly.json"));
    assertThat(cached.failures()).as(describe(cached)).isEmpty();
    assertThat(resolveStep(cached).githubOutput()).isEqualTo(lines("nightly", "", true, "[]"));
    assertThat(resolveStep(cached).log()).contains("from the cache").doesNotContain("building");
    assertThat(second.cacheEvents()).containsExactly(first.cacheEvents().get(0).replace("miss", "hit"));
  }

  @Test
  void withoutVersionAndJarAnActionWithoutSourcesFailsClearly() throws Exception {
    // the test's own origin holds the action and the workflows but not the sources the build needs
    WorkflowRun run = harness("main", Map.of(), Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule",
        EVENTS.resolve("schedule-weekly.json"));
    assertThat(run.failures()).hasSize(1);
    assertThat(run.failures().get(0).log()).startsWith("::error::ci-policy action: no ci-policy sources at the"
        + " action's path ").endsWith(" to build the CLI from: give the input version (a published release) or jar\n");
  }

  @Test
  void theActionRefusesAHeadThatIsNotAMergeCommitAndAJarAndAVersionTogether() throws Exception {
    WorkflowRun head = harness("feature", jarInput(), Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"),
        "pull_request", EVENTS.resolve("pull_request-labeled.json"));
    assertThat(head.failures().get(0).log()).startsWith("::error::ci-policy action: HEAD is not a merge commit");
    WorkflowRun both = harness("main", Map.of("jar", cliJar.toString(), "version", "0.1.0"), Map.of())
        .run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule", EVENTS.resolve("schedule-nightly.json"));
    assertThat(both.failures().get(0).log())
        .isEqualTo("::error::ci-policy action: give one of the inputs version and jar, not both\n");
  }

  /** A Maven repository layout on disk with the CLI's runnable jar of a release, as Central serves it. */
  private Path localRepository(String sha1) throws Exception {
    Path repo = scratch.resolve("m2");
    Path dir = Files.createDirectories(repo.resolve("dev/cipolicy/ci-policy-cli/0.1.0"));
    Path jar = dir.resolve("ci-policy-cli-0.1.0-all.jar");
    Files.copy(cliJar, jar);
    Files.writeString(dir.resolve("ci-policy-cli-0.1.0-all.jar.sha1"), sha1 == null ? digest("SHA-1", jar) : sha1);
    return repo;
  }

  private static String digest(String algorithm, Path file) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(Files.readAllBytes(file)));
  }

  @Test
  void theActionDownloadsAReleaseAndChecksItsChecksum() throws Exception {
    Path repo = localRepository(null);
    Map<String, String> inputs = new LinkedHashMap<>(Map.of("repository-url", repo.toUri().toString(),
        "version", "0.1.0"));
    WorkflowRun ok = harness("main", inputs, Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule",
        EVENTS.resolve("schedule-weekly.json"));
    assertThat(ok.failures()).as(describe(ok)).isEmpty();
    assertThat(resolveStep(ok).githubOutput()).isEqualTo(lines("weekly", "", true, "[]"));

    inputs.put("jar-sha256", digest("SHA-256", cliJar).toUpperCase(java.util.Locale.ROOT));
    WorkflowRun pinned = harness("main", inputs, Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule",
        EVENTS.resolve("schedule-weekly.json"));
    assertThat(pinned.failures()).as(describe(pinned)).isEmpty();

    inputs.put("jar-sha256", "0".repeat(64));
    WorkflowRun wrong = harness("main", inputs, Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule",
        EVENTS.resolve("schedule-weekly.json"));
    assertThat(wrong.failures()).hasSize(1);
    assertThat(wrong.failures().get(0).log()).startsWith("::error::ci-policy action: checksum mismatch for "
        + repo.toUri() + "dev/cipolicy/ci-policy-cli/0.1.0/ci-policy-cli-0.1.0-all.jar: expected " + "0".repeat(64));
  }

  @Test
  void aBrokenDownloadFailsAgainstTheRepositorysSha1() throws Exception {
    Path repo = localRepository("da39a3ee5e6b4b0d3255bfef95601890afd80709  ci-policy-cli-0.1.0-all.jar\n");
    WorkflowRun run = harness("main", Map.of("repository-url", repo.toUri().toString(), "version", "0.1.0"), Map.of())
        .run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule", EVENTS.resolve("schedule-weekly.json"));
    assertThat(run.failures()).hasSize(1);
    assertThat(run.failures().get(0).log()).contains("checksum mismatch")
        .contains("expected da39a3ee5e6b4b0d3255bfef95601890afd80709, downloaded " + digest("SHA-1", cliJar));
    WorkflowRun version = harness("main", Map.of("repository-url", repo.toUri().toString(), "version", "1.0; rm -rf /"),
        Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule", EVENTS.resolve("schedule-weekly.json"));
    assertThat(version.failures().get(0).log())
        .isEqualTo("::error::ci-policy action: version: not a release version: '1.0; rm -rf /'\n");
  }

  @Test
  void theActionsInputsReachItsScriptOnlyThroughEnv() throws Exception {
    // Literal text on purpose: what matters is the shell text itself, because the runner substitutes an
    // expression into a run: script before bash sees it, so an input or a PR field there could inject shell
    // code. action.yml is an action, not a workflow, so it is read as YAML; the workflows' steps through the
    // model.
    JsonNode action = WorkflowHarness.readYaml(CliTestSupport.REPO.resolve("action.yml"));
    for (JsonNode step : action.path("runs").path("steps")) {
      assertThat(step.path("run").asText()).doesNotContain("${{");
    }
    List<String> declared = new ArrayList<>();
    action.path("inputs").properties().forEach(e -> declared.add(e.getKey()));
    assertThat(declared).containsExactly("policy", "registrations", "version", "jar", "jar-sha256", "repository-url",
        "changed-files", "cadence-override", "step-summary", "java");
    List<String> outputs = new ArrayList<>();
    action.path("outputs").properties().forEach(e -> outputs.add(e.getKey()));
    assertThat(outputs).containsExactly("cadence", "raw_labels", "bypass_fastfail", "skipped_stages");
    for (String wf : List.of("pr-test.yml", "pr-test-action.yml", "ci-policy-resolve.yml", "pr-release.yml")) {
      for (Job job : model(wf).jobs()) {
        for (Step step : job.steps()) {
          assertThat(step.run().orElse("")).as("%s: a run: script with an expression", wf).doesNotContain("${{");
        }
      }
    }
  }

  @Test
  void theStepSummaryCanBeTurnedOffAndTheDiffGivenByTheCaller() throws Exception {
    Map<String, String> inputs = new LinkedHashMap<>(jarInput());
    inputs.put("step-summary", "false");
    WorkflowRun off = harness("main", inputs, Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"), "schedule",
        EVENTS.resolve("schedule-nightly.json"));
    assertThat(off.failures()).as(describe(off)).isEmpty();
    assertThat(resolveStep(off).summary()).isEmpty();
    // a caller's diff file replaces the merge commit's: this one is not NUL-terminated, so nothing is pruned
    Path diff = scratch.resolve("diff.bin");
    Files.write(diff, "M\0docs/guide.md".getBytes(StandardCharsets.UTF_8));
    inputs.put("changed-files", diff.toString());
    inputs.put("step-summary", "maybe");
    WorkflowRun bad = harness("pull-1-merge", inputs, Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"),
        "pull_request", EVENTS.resolve("pull_request-synchronize.json"));
    assertThat(bad.failures().get(0).log())
        .isEqualTo("::error::ci-policy action: step-summary: expected true or false, found 'maybe'\n");
    inputs.put("step-summary", "true");
    WorkflowRun given = harness("pull-1-merge", inputs, Map.of()).run(WORKFLOWS.resolve("pr-test-action.yml"),
        "pull_request", EVENTS.resolve("pull_request-synchronize.json"));
    assertThat(given.failures()).as(describe(given)).isEmpty();
    assertThat(resolveStep(given).githubOutput()).isEqualTo(lines("regular", "run-ci-lora", false, "[]"));
  }

  @Test
  void aChangedFilesPathForAScheduleWithoutTheFileIsNoLongerAFailure() throws Exception {
    // the old failure: CHANGED_FILES_PATH set for every event, the file written only for a pull request
    WorkflowRun run = harness("main", jarInput(), Map.of("CHANGED_FILES_PATH", "changed-files.bin"))
        .run(WORKFLOWS.resolve("pr-test.yml"), "schedule", EVENTS.resolve("schedule-nightly.json"));
    assertThat(run.failures()).as(describe(run)).isEmpty();
    assertThat(resolveStep(run).githubOutput()).isEqualTo(lines("nightly", "", true, "[]"));
  }

  @Test
  void withoutTheRunnersEventVariablesTheNoEnvStepFails() throws Exception {
    // the old failure: a step without an env: block, on a CLI that read only EVENT_NAME, had no event
    WorkflowRun run = harness("main", jarInput(), Map.of("GITHUB_EVENT_NAME", ""))
        .run(WORKFLOWS.resolve("pr-test.yml"), "schedule", EVENTS.resolve("schedule-nightly.json"));
    assertThat(run.failures()).hasSize(1);
    assertThat(run.failures().get(0).log())
        .isEqualTo("::error::no event name: pass --event-name or set EVENT_NAME or GITHUB_EVENT_NAME\n");
  }

  @Test
  void theExpressionEvaluatorFollowsGithubAndRefusesWhatItDoesNotKnow() {
    WorkflowExpressions ex = new WorkflowExpressions(Map.of("github", new ObjectMapper().createObjectNode()
        .put("event_name", "pull_request").set("event", new ObjectMapper().createObjectNode().put("number", 7)),
        "needs", new ObjectMapper().createObjectNode()));
    assertThat(ex.condition("github.event_name == 'PULL_REQUEST'")).isTrue();
    assertThat(ex.condition("github.event.action != 'closed'")).isTrue();
    assertThat(ex.substitute("g-${{ github.event.number || github.event.schedule }}")).isEqualTo("g-7");
    assertThat(ex.condition("${{ !contains(fromJSON('[\"a\",\"b\"]'), 'b') }}")).isFalse();
    assertThat(ex.evaluate("'it''s'")).isEqualTo(TextNode.valueOf("it's"));
    assertThatThrownBy(() -> ex.condition("always()")).hasMessageContaining("function always()");
    assertThatThrownBy(() -> ex.condition("secrets.TOKEN")).hasMessageContaining("context 'secrets'");
    assertThatThrownBy(() -> ex.condition("github.event.number > 3")).hasMessageContaining("comparison");
    assertThatThrownBy(() -> ex.condition("github.event.labels.*.name")).hasMessageContaining("the * filter");
  }
}

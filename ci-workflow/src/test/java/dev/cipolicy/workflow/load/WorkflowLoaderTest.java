package dev.cipolicy.workflow.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.core.load.DocumentLimits;
import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.ExprValue;
import dev.cipolicy.workflow.InjectedResult;
import dev.cipolicy.workflow.InvalidWorkflowException;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Matrix;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowSimulator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class WorkflowLoaderTest {
  static Path examples() {
    Path p = Path.of("../examples/workflows");
    return Files.isDirectory(p) ? p : Path.of("../../examples/workflows");
  }

  static Workflow example(String name) throws IOException {
    Path p = examples().resolve(name);
    return WorkflowLoader.load(p.getFileName().toString(), Files.readString(p, StandardCharsets.UTF_8));
  }

  private static Workflow load(String text) {
    return WorkflowLoader.load("w.yml", text);
  }

  private static String error(String text) {
    try {
      load(text);
    } catch (InvalidWorkflowException e) {
      assertThat(e.getMessage()).doesNotContain("\n");
      return e.getMessage();
    }
    throw new AssertionError("expected an InvalidWorkflowException for:\n" + text);
  }

  @Test
  void readsTheBuggyExampleWithPositions() throws IOException {
    Workflow w = example("model/buggy.yml");
    assertThat(w.file()).isEqualTo("buggy.yml");
    assertThat(w.name()).contains("GPU tests (buggy)");
    assertThat(w.triggers()).extracting(Trigger::event).containsExactly("pull_request", "schedule", "workflow_dispatch");
    Trigger pr = w.trigger("pull_request").orElseThrow();
    assertThat(pr.types()).containsExactly("opened", "synchronize", "reopened", "labeled", "closed");
    assertThat(pr.location()).isEqualTo(new SourceLocation("buggy.yml", 8, 3));
    assertThat(w.trigger("schedule").orElseThrow().crons()).containsExactly("0 15 * * 0-5", "0 15 * * 6");
    assertThat(w.trigger("workflow_dispatch").orElseThrow().inputs()).singleElement().satisfies(i -> {
      assertThat(i.name()).isEqualTo("cadence");
      assertThat(i.type()).contains("string");
      assertThat(i.required()).isFalse();
      assertThat(i.defaultValue()).contains("");
    });
    assertThat(w.concurrency()).hasValueSatisfying(c -> {
      assertThat(c.group()).isEqualTo("gpu-tests-${{ github.event.number || github.run_id }}");
      assertThat(c.cancelInProgress()).isEqualTo("true");
    });
    assertThat(w.jobs()).extracting(Job::id)
        .containsExactly("policy", "stage-a-cpu", "docker-build", "resolve-ci-image", "stage-b-gpu", "stage-c-gpu");
    Job policy = w.job("policy").orElseThrow();
    assertThat(policy.location()).isEqualTo(new SourceLocation("buggy.yml", 24, 3));
    assertThat(policy.outputs()).extracting(o -> o.name())
        .containsExactly("cadence", "labels", "bypass_fastfail", "skipped_stages");
    assertThat(policy.runsOn()).containsExactly("ubuntu-latest");
    assertThat(policy.condition()).hasValueSatisfying(c -> {
      assertThat(c.expression().text()).isEqualTo("github.event.action != 'closed'");
      assertThat(c.location().line()).isEqualTo(25);
    });
    assertThat(w.job("stage-a-cpu").orElseThrow().needs()).containsExactly("policy");
    assertThat(w.job("stage-a-cpu").orElseThrow().condition()).isEmpty();
    assertThat(w.job("docker-build").orElseThrow().needs()).containsExactly("policy", "stage-a-cpu");
    assertThat(w.job("docker-build").orElseThrow().condition().orElseThrow().expression().callsStatusFunction())
        .isTrue();
    assertThat(w.job("resolve-ci-image").orElseThrow().condition()).isEmpty();
    Job b = w.job("stage-b-gpu").orElseThrow();
    assertThat(b.runsOn()).containsExactly("self-hosted", "gpu-1");
    Matrix m = b.matrix().orElseThrow();
    assertThat(m.failFast()).isFalse();
    assertThat(m.maxParallel()).contains(2);
    assertThat(m.isDynamic()).isFalse();
    assertThat(m.legs()).hasSize(3);
    assertThat(m.legs().get(2)).containsEntry("big", new ExprValue.Bool(true))
        .containsEntry("shard", new ExprValue.Num(2));
    assertThat(w.warnings()).isEmpty();
  }

  @Test
  void theLoadedExamplesReproduceTheBugAndItsFix() throws IOException {
    Scenario s = Scenario.of(Event.named("schedule")).withOutput("policy", "bypass_fastfail", "true")
        .withOutput("policy", "skipped_stages", "").withResult("stage-a-cpu", InjectedResult.FAILURE);
    Simulation buggy = WorkflowSimulator.of(example("model/buggy.yml")).simulate(s);
    assertThat(buggy.result("docker-build")).as(buggy.jobs().toString()).isEqualTo(JobResult.SUCCESS);
    assertThat(buggy.job("resolve-ci-image").orElseThrow().reason())
        .isEqualTo("skipped: implicit success() is false: ancestor stage-a-cpu failed (via docker-build)");
    assertThat(buggy.result("stage-b-gpu")).isEqualTo(JobResult.SKIPPED);
    assertThat(buggy.result("stage-c-gpu")).isEqualTo(JobResult.SKIPPED);
    Simulation fixed = WorkflowSimulator.of(example("model/fixed.yml")).simulate(s);
    assertThat(fixed.result("resolve-ci-image")).as(fixed.jobs().toString()).isEqualTo(JobResult.SUCCESS);
    assertThat(fixed.result("stage-b-gpu")).isEqualTo(JobResult.SUCCESS);
    assertThat(fixed.result("stage-c-gpu")).isEqualTo(JobResult.SUCCESS);
    // a schedule event has no action: github.event.action is null, so the policy job's `!= 'closed'` is true
    assertThat(buggy.result("policy")).isEqualTo(JobResult.SUCCESS);
    // the skip list is honoured by the if, and the pull_request closed event runs nothing
    Simulation skipped = WorkflowSimulator.of(example("model/fixed.yml"))
        .simulate(s.withOutput("policy", "skipped_stages", "stage-c-gpu"));
    assertThat(skipped.result("stage-b-gpu")).isEqualTo(JobResult.SUCCESS);
    assertThat(skipped.result("stage-c-gpu")).isEqualTo(JobResult.SKIPPED);
  }

  @Test
  void loadsEveryExistingExampleWorkflow() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(examples())) {
      files = s.filter(p -> p.toString().endsWith(".yml")).sorted().toList();
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(4);
    for (Path p : files) {
      Workflow w = WorkflowLoader.load(p.getFileName().toString(), Files.readString(p, StandardCharsets.UTF_8));
      assertThat(w.jobs()).as(p.toString()).isNotEmpty();
      assertThat(w.triggers()).as(p.toString()).isNotEmpty();
      // every job has a result in the simplest scenario: the model can simulate what it read
      Simulation sim = WorkflowSimulator.of(w).simulate(Scenario.of(Event.named(w.triggers().get(0).event())));
      assertThat(sim.jobs()).hasSameSizeAs(w.jobs());
    }
    Workflow prTest = example("pr-test.yml");
    assertThat(prTest.trigger("schedule").orElseThrow().crons()).containsExactly("0 15 * * 0-5", "0 15 * * 6");
    assertThat(prTest.job("resolve-ci-policy").orElseThrow().outputs()).extracting(o -> o.name())
        .contains("bypass_fastfail", "skipped_stages");
  }

  @Test
  void onAsAStringAListOrAMapping() {
    String jobs = "\njobs:\n  a:\n    runs-on: x\n";
    assertThat(load("on: push" + jobs).triggers()).extracting(Trigger::event).containsExactly("push");
    assertThat(load("on: [push, pull_request]" + jobs).triggers()).extracting(Trigger::event)
        .containsExactly("push", "pull_request");
    Workflow w = load("on:\n  pull_request:\n    types: labeled\n  push:\n  workflow_call:\n    inputs:\n"
        + "      force: {type: boolean, required: true, default: false}\n" + jobs);
    assertThat(w.triggers()).extracting(Trigger::event).containsExactly("pull_request", "push", "workflow_call");
    assertThat(w.trigger("pull_request").orElseThrow().types()).containsExactly("labeled");
    assertThat(w.trigger("workflow_call").orElseThrow().inputs()).singleElement().satisfies(i -> {
      assertThat(i.required()).isTrue();
      assertThat(i.type()).contains("boolean");
      assertThat(i.defaultValue()).contains("false");
    });
  }

  @Test
  void needsIfAndContinueOnError() {
    Workflow w = load("on: push\njobs:\n  a:\n    runs-on: x\n    continue-on-error: true\n  b:\n    needs: a\n"
        + "    if: ${{ failure() }}\n  c:\n    needs: [a, b]\n    if: true\n    concurrency: c-${{ github.ref }}\n");
    assertThat(w.job("a").orElseThrow().continueOnError()).isTrue();
    assertThat(w.job("b").orElseThrow().needs()).containsExactly("a");
    assertThat(w.job("b").orElseThrow().condition().orElseThrow().expression().callsStatusFunction()).isTrue();
    assertThat(w.job("c").orElseThrow().needs()).containsExactly("a", "b");
    assertThat(w.job("c").orElseThrow().concurrency().orElseThrow().group()).isEqualTo("c-${{ github.ref }}");
    Simulation s = WorkflowSimulator.of(w).simulate(Scenario.of(Event.named("push")).withResult("a", InjectedResult.FAILURE));
    // a failed continue-on-error job reports success: failure() is false for b
    assertThat(s.result("a")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("b")).isEqualTo(JobResult.SKIPPED);
    // an expression continue-on-error is kept as false with a warning
    Workflow e = load("on: push\njobs:\n  a:\n    runs-on: x\n    continue-on-error: ${{ matrix.experimental }}\n");
    assertThat(e.job("a").orElseThrow().continueOnError()).isFalse();
    assertThat(e.warnings()).singleElement().satisfies(x -> assertThat(x.toString())
        .isEqualTo("w.yml:5:24: job 'a': continue-on-error is the expression '${{ matrix.experimental }}';"
            + " the simulation treats it as false"));
  }

  @Test
  void matrixLegsFromIncludeAndExcludeOrDynamic() {
    String head = "on: push\njobs:\n  a:\n    runs-on: x\n    strategy:\n      matrix:\n";
    Matrix m = load(head + "        os: [l, w]\n        py: [1, 2, 3]\n        exclude:\n          - {os: w, py: 1}\n"
        + "        include:\n          - {os: l, extra: true}\n          - {os: m, py: 9}\n")
        .job("a").orElseThrow().matrix().orElseThrow();
    // 6 combinations, 1 excluded; the first include extends the os=l legs, the second adds a leg
    assertThat(m.legs()).hasSize(6);
    assertThat(m.legs().stream().filter(l -> l.containsKey("extra")).count()).isEqualTo(3);
    assertThat(m.legs().get(5)).isEqualTo(Map.of("os", new ExprValue.Str("m"), "py", new ExprValue.Num(9)));
    assertThat(m.failFast()).isTrue();
    Matrix onlyInclude = load(head + "        include:\n          - {a: 1}\n          - {a: 2}\n")
        .job("a").orElseThrow().matrix().orElseThrow();
    assertThat(onlyInclude.legs()).hasSize(2);
    Matrix dyn = load(head.replace("      matrix:\n", "      matrix: ${{ fromJSON(needs.p.outputs.m) }}\n"))
        .job("a").orElseThrow().matrix().orElseThrow();
    assertThat(dyn.isDynamic()).isTrue();
    assertThat(dyn.dynamic()).contains("${{ fromJSON(needs.p.outputs.m) }}");
    assertThat(dyn.legs()).hasSize(1);
    Matrix dynKey = load(head + "        suite: ${{ fromJSON(needs.p.outputs.s) }}\n")
        .job("a").orElseThrow().matrix().orElseThrow();
    assertThat(dynKey.isDynamic()).isTrue();
    assertThat(error(head + "        os: [l]\n        exclude:\n          - {os: l}\n"))
        .isEqualTo("Invalid workflow: w.yml:5:5: jobs.a.strategy.matrix: the matrix has no combination (every one"
            + " is excluded, or no key has a value); expected at least one");
    assertThat(error(head + "        a: [1,2,3,4,5,6,7,8]\n        b: [1,2,3,4,5,6,7,8]\n        c: [1,2,3,4,5]\n"))
        .contains("more than 256 combinations");
  }

  @Test
  void usesRecordsLocalCallsAndWarnsOnRemoteOnes() {
    Workflow w = load("on: push\njobs:\n  local:\n    uses: ./.github/workflows/x.yml\n    with:\n"
        + "      cadence: nightly\n      shards: 4\n  remote:\n    uses: org/repo/.github/workflows/y.yml@v1\n");
    assertThat(w.job("local").orElseThrow().call()).hasValueSatisfying(c -> {
      assertThat(c.local()).isTrue();
      assertThat(c.with()).containsExactly(Map.entry("cadence", "nightly"), Map.entry("shards", "4"));
      assertThat(c.location()).isEqualTo(new SourceLocation("w.yml", 4, 11));
    });
    assertThat(w.job("remote").orElseThrow().call().orElseThrow().local()).isFalse();
    assertThat(w.warnings()).extracting(Object::toString).containsExactly("w.yml:4:11: job 'local': calls the"
        + " local reusable workflow './.github/workflows/x.yml', which is not there to read; the simulation treats"
        + " it as one opaque job", "w.yml:9:11: job 'remote': calls the remote reusable workflow"
        + " 'org/repo/.github/workflows/y.yml@v1'; the simulation treats it as one opaque job");
  }

  @Test
  void badInputIsOneLocatedLine() {
    assertThat(error("on: push\njobs:\n  a:\n    if: ${{ 1 == }}\n"))
        .isEqualTo("Invalid workflow: w.yml:4:9: jobs.a.if: expression '${{ 1 == }}' column 10: unexpected end"
            + " of expression; expected a literal, a context, a function call, '!' or '('");
    assertThat(error("on: push\njobs:\n  a:\n    needs: [b]\n")).isEqualTo("Invalid workflow: w.yml:4:13:"
        + " jobs.a.needs: needs 'b', which is not a job of the workflow; expected one of [a]");
    assertThat(error("on: push\njobs:\n  a:\n    needs: b\n  b:\n    needs: a\n"))
        .startsWith("Invalid workflow: w.yml:2:1: jobs: ").contains("cycle");
    assertThat(error("on: push\njobs:\n  a: {}\n  a: {}\n")).contains("w.yml:4:3: duplicate key 'a'");
    assertThat(error("on: push\njobs:\n  a:\n    strategy: {max-parallel: 0x10}\n"))
        .contains("w.yml:4:30: jobs.a.strategy.max-parallel: 0x10 is not a decimal number");
    assertThat(error("on: push\njobs:\n  a:\n    outputs:\n      o: ${{ steps.x.outputs.y\n"))
        .contains("jobs.a.outputs.o: expression").contains("'${{' is not closed");
    assertThat(error("on: push\njobs:\n  a: &x {runs-on: l}\n  b: *x\n")).contains("YAML alias *x is not supported");
    assertThat(error("jobs:\n  a: {}\n")).isEqualTo("Invalid workflow: w.yml:1:1: missing 'on:'; expected the"
        + " events the workflow runs on");
    assertThat(error("on: push\n")).contains("missing 'jobs:'");
    assertThat(error("on: push\njobs: {}\n")).isEqualTo("Invalid workflow: w.yml:2:7: jobs: the workflow has no job;"
        + " expected at least one under 'jobs:'");
    assertThat(error("- a\n")).contains("expected a workflow mapping");
    assertThat(error("on: push\njobs: [\n")).startsWith("Invalid workflow: w.yml:").contains("malformed YAML");
    assertThat(error("on: push\njobs:\n  a:\n    continue-on-error: yes\n")).contains("expected true or false");
  }

  @Test
  void workflowFilesAreLimitedLikePolicyDocuments() {
    String longLine = "on: push\n# " + "x".repeat(DocumentLimits.MAX_YAML_LINE_CHARS) + "\njobs:\n  a: {}\n";
    assertThat(error(longLine)).contains("w.yml:2:1: the line is").contains("YAML lines are limited to 65536");
    String huge = "on: push\njobs:\n  a: {}\n" + "#\n".repeat(DocumentLimits.MAX_DOCUMENT_CHARS / 2);
    assertThat(error(huge)).contains("at most " + DocumentLimits.MAX_DOCUMENT_CHARS + " are accepted");
  }

  private static final String CALLEE = "on:\n  workflow_call:\n    inputs:\n      cadence: {type: string, required: true}\n"
      + "      labels: {type: string, required: false, default: ''}\njobs:\n  run:\n    runs-on: x\n"
      + "    steps:\n      - run: ci/run-suite.sh --cadence \"${{ inputs.cadence }}\"\n";

  private static String caller(String with) {
    return "on: push\njobs:\n  stage:\n    uses: ./.github/workflows/suite.yml\n    with:\n" + with;
  }

  @Test
  void aLocalReusableWorkflowIsReadAndItsInputsChecked() {
    Map<String, String> files = Map.of("./.github/workflows/suite.yml", CALLEE);
    Workflow w = WorkflowLoader.load("w.yml", caller("      cadence: nightly\n"),
        uses -> java.util.Optional.ofNullable(files.get(uses)));
    assertThat(w.warnings()).isEmpty();
    Job stage = w.job("stage").orElseThrow();
    assertThat(stage.call().orElseThrow().callee()).hasValueSatisfying(c -> {
      assertThat(c.file()).isEqualTo("suite.yml");
      assertThat(c.trigger("workflow_call").orElseThrow().inputs()).hasSize(2);
    });
    assertThat(stage.texts()).containsExactly("nightly");
    assertThatThrownBy(() -> WorkflowLoader.load("w.yml", caller("      cadence: x\n      shard: 1\n"),
        uses -> java.util.Optional.ofNullable(files.get(uses))))
        .hasMessageContaining("w.yml:4:11: jobs.stage.uses: passes input 'shard', which suite.yml does not declare;"
            + " expected one of [cadence, labels]");
    assertThatThrownBy(() -> WorkflowLoader.load("w.yml", caller("      labels: x\n"),
        uses -> java.util.Optional.ofNullable(files.get(uses))))
        .hasMessageContaining("does not pass the required input 'cadence' of suite.yml");
    assertThatThrownBy(() -> WorkflowLoader.load("w.yml", caller("      cadence: x\n"),
        uses -> java.util.Optional.of("on: push\njobs:\n  a: {runs-on: x}\n")))
        .hasMessageContaining("which has no on.workflow_call; a reusable workflow must declare it");
    assertThatThrownBy(() -> WorkflowLoader.load("w.yml", caller("      cadence: x\n"),
        uses -> java.util.Optional.of("on: [workflow_call\n")))
        .hasMessageContaining("w.yml:4:11: jobs.stage.uses: calls './.github/workflows/suite.yml', which does not"
            + " load as a workflow (1 problem, the first at line ")
        .hasMessageContaining("lint it on its own to see the problems");
  }

  @Test
  void aCalledFileThatIsNoWorkflowIsNeverQuoted() {
    String shadow = "root:$6$SECRETHASH:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n";
    assertThatThrownBy(() -> WorkflowLoader.load("w.yml", caller("      cadence: x\n"),
        uses -> java.util.Optional.of(shadow)))
        .hasMessageContaining("which does not load as a workflow")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("SECRETHASH").doesNotContain("daemon"));
  }

  @Test
  void aLocalCallOutsideTheWorkflowsDirectoryIsRefusedUnread() {
    List<String> asked = new java.util.ArrayList<>();
    for (String uses : List.of("./secret.yml", "./.github/workflows/../../etc/shadow.yml", "./.github/workflows/a/b.yml",
        "./.github/workflows/x.txt", "./.github/x.yml")) {
      assertThatThrownBy(() -> WorkflowLoader.load("w.yml", "on: push\njobs:\n  c:\n    uses: " + uses + "\n",
          u -> {
            asked.add(u);
            return java.util.Optional.of(CALLEE);
          }))
          .as(uses).hasMessageContaining("expected ./.github/workflows/<file>.yml or .yaml, the only local path GitHub"
              + " reads");
    }
    assertThat(asked).isEmpty();
    assertThat(WorkflowLoader.load("w.yml", "on: push\njobs:\n  c:\n    uses: ./.github/workflows/s.yaml\n"
        + "    with: {cadence: x}\n", u -> java.util.Optional.of(CALLEE)).job("c").orElseThrow().call().orElseThrow()
        .callee()).isPresent();
  }

  /** A workflow of {@code calls} jobs, each calling {@code callee}, or of plain jobs when there is none. */
  private static String fanOut(boolean called, int calls, String callee) {
    StringBuilder sb = new StringBuilder(called ? "on: workflow_call\njobs:\n" : "on: push\njobs:\n");
    for (int i = 0; i < calls; i++) {
      sb.append(callee.isEmpty() ? "  j" + i + ": {runs-on: x}\n" : "  c" + i + ": {uses: ./.github/workflows/" + callee
          + "}\n");
    }
    return sb.toString();
  }

  @Test
  void eachCalledFileIsReadAndParsedOnceAndTheExpandedJobsAreBounded() {
    Map<String, String> files = Map.of("./.github/workflows/l1.yml", fanOut(true, 60, "l2.yml"),
        "./.github/workflows/l2.yml", fanOut(true, 60, "l3.yml"), "./.github/workflows/l3.yml", fanOut(true, 60, ""));
    Map<String, Integer> asked = new java.util.HashMap<>();
    java.util.function.Function<String, java.util.Optional<String>> locals = u -> {
      asked.merge(u, 1, Integer::sum);
      return java.util.Optional.ofNullable(files.get(u));
    };
    // 60 calls of l1, each of 60 calls of l2, each of 60 calls of l3 (60 jobs): about 13 million jobs
    assertThatThrownBy(() -> org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
        () -> WorkflowLoader.load("w.yml", fanOut(false, 60, "l1.yml"), locals)))
        .hasMessageContaining("w.yml:1:1: jobs: the workflow and the reusable workflows it calls make more than "
            + WorkflowLoader.MAX_EXPANDED_JOBS + " jobs");
    assertThat(asked).containsOnly(Map.entry("./.github/workflows/l1.yml", 1), Map.entry("./.github/workflows/l2.yml", 1),
        Map.entry("./.github/workflows/l3.yml", 1));
    // 60 calls of l3 are 60 + 60 * 60 = 3,660 jobs: loaded, the called workflow shared by every call
    Workflow w = WorkflowLoader.load("w.yml", fanOut(false, 60, "l3.yml"), locals);
    assertThat(w.jobs().get(0).call().orElseThrow().callee().orElseThrow())
        .isSameAs(w.jobs().get(59).call().orElseThrow().callee().orElseThrow());
  }

  @Test
  void aLocalReusableWorkflowThatIsNotThereIsAnOpaqueJobWithAWarning() {
    Workflow w = WorkflowLoader.load("w.yml", caller("      cadence: x\n"));
    assertThat(w.warnings()).singleElement().satisfies(x -> {
      assertThat(x.location()).isEqualTo(new SourceLocation("w.yml", 4, 11));
      assertThat(x.message()).contains("the local reusable workflow './.github/workflows/suite.yml', which is not"
          + " there to read; the simulation treats it as one opaque job");
    });
    assertThat(w.job("stage").orElseThrow().call().orElseThrow().callee()).isEmpty();
  }

  @Test
  void callsNestAtMostFourLevels() {
    String self = "on:\n  workflow_call:\njobs:\n  again:\n    uses: ./.github/workflows/self.yml\n";
    assertThatThrownBy(() -> WorkflowLoader.load("self.yml", self, uses -> java.util.Optional.of(self)))
        .hasMessageContaining("more than " + WorkflowLoader.MAX_CALL_DEPTH + " levels deep");
  }

  @Test
  void maxParallelMayBeAnExpressionAndStepsAreRead() {
    Workflow w = load("on: push\njobs:\n  a:\n    runs-on: x\n    env: {A: '${{ github.sha }}'}\n"
        + "    strategy:\n      max-parallel: ${{ github.event_name == 'schedule' && 1 || 4 }}\n"
        + "      matrix: {shard: [0, 1, 2, 3]}\n    steps:\n      - uses: actions/checkout@v4\n"
        + "        with: {fetch-depth: 2}\n      - id: s\n        run: echo hi\n        env: {B: b}\n");
    Job a = w.job("a").orElseThrow();
    assertThat(a.matrix().orElseThrow().maxParallel()).isEmpty();
    assertThat(a.matrix().orElseThrow().maxParallelExpression())
        .contains("${{ github.event_name == 'schedule' && 1 || 4 }}");
    assertThat(a.steps()).hasSize(2);
    assertThat(a.steps().get(1).id()).contains("s");
    assertThat(a.texts()).containsExactly("${{ github.sha }}", "actions/checkout@v4", "2", "echo hi", "b");
    assertThat(error("on: push\njobs:\n  a:\n    steps:\n      - name: nothing\n"))
        .contains("a step needs 'run:' (a command) or 'uses:' (an action)");
    assertThat(error("on: push\njobs:\n  a:\n    strategy: {max-parallel: '${{ 1 == }}'}\n"))
        .contains("jobs.a.strategy.max-parallel: expression");
  }
}

package dev.cipolicy.workflow;

import static dev.cipolicy.workflow.InjectedResult.CANCELLED;
import static dev.cipolicy.workflow.InjectedResult.FAILURE;
import static dev.cipolicy.workflow.InjectedResult.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.SourceLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Conformance of the simulator with GitHub's job rules, each written from GitHub's documentation of
 * {@code jobs.<id>.if}, {@code needs} and the status functions, and from the behaviour its users reported.
 */
class WorkflowSimulatorTest {
  private int line = 1;

  private Job.Builder job(String id, String... needs) {
    return Job.builder(id, new SourceLocation("w.yml", line++, 3)).needs(needs);
  }

  private static Workflow workflow(Job.Builder... jobs) {
    List<Job> list = new ArrayList<>();
    for (Job.Builder b : jobs) {
      list.add(b.build());
    }
    return new Workflow("w.yml", Optional.empty(), List.of(), list);
  }

  private static Scenario push() {
    return Scenario.of(Event.named("push"));
  }

  private static Simulation run(Workflow w, Scenario s) {
    return WorkflowSimulator.of(w).simulate(s);
  }

  private static String reason(Simulation s, String job) {
    return s.job(job).orElseThrow().reason();
  }

  @Test
  void aJobWithoutIfRunsWhenItsNeedsSucceed() {
    Simulation s = run(workflow(job("a"), job("b", "a")), push());
    assertThat(s.result("a")).isEqualTo(JobResult.SUCCESS);
    assertThat(reason(s, "a")).isEqualTo("success: ran (implicit success() is true: the job needs no job)");
    assertThat(reason(s, "b")).isEqualTo("success: ran (implicit success() is true: ancestor a succeeded)");
  }

  @Test
  void implicitSuccessCoversTheTransitiveClosure() {
    Workflow w = workflow(job("a"), job("b", "a").condition("always()"), job("c", "b"));
    Simulation s = run(w, push().withResult("a", FAILURE));
    assertThat(s.result("b")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("c")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(s, "c")).isEqualTo("skipped: implicit success() is false: ancestor a failed (via b)");
  }

  @Test
  void aJobAfterAnAlwaysJobWhoseGrandparentWasSkippedIsSkipped() {
    Workflow w = workflow(job("g").condition("false"), job("p", "g").condition("${{ always() }}"), job("c", "p"));
    Simulation s = run(w, push());
    assertThat(s.result("g")).isEqualTo(JobResult.SKIPPED);
    assertThat(s.result("p")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("c")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(s, "c")).isEqualTo("skipped: implicit success() is false: ancestor g was skipped (via p)");
    assertThat(reason(s, "g")).isEqualTo("skipped: if `false` is false: `false` is false");
  }

  @Test
  void allThreeStatusFunctionsAreNotAlwaysWhenAnAncestorWasSkipped() {
    Workflow w = workflow(job("a").condition("false"),
        job("x", "a").condition("success() || failure() || cancelled()"), job("y", "a").condition("always()"));
    Simulation s = run(w, push());
    assertThat(s.result("x")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(s, "x")).isEqualTo("skipped: if `success() || failure() || cancelled()` is false: success() is"
        + " false: ancestor a was skipped; and failure() is false: no ancestor failed; and cancelled() is false: the run"
        + " was not cancelled");
    assertThat(s.result("y")).isEqualTo(JobResult.SUCCESS);
  }

  @Test
  void aFailedContinueOnErrorJobCountsAsSuccess() {
    Workflow w = workflow(job("a").continueOnError(true), job("b", "a"),
        job("c", "a").condition("always() && needs.a.result == 'success'"), job("d", "a").condition("failure()"));
    Simulation s = run(w, push().withResult("a", FAILURE));
    assertThat(s.result("a")).isEqualTo(JobResult.SUCCESS);
    assertThat(reason(s, "a")).isEqualTo("success: ran (implicit success() is true: the job needs no job); it failed,"
        + " but continue-on-error reports success");
    assertThat(s.result("b")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("c")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("d")).isEqualTo(JobResult.SKIPPED);
  }

  @Test
  void anyStatusFunctionRemovesTheImplicitSuccessEvenNegated() {
    Workflow w = workflow(job("a"), job("neg", "a").condition("!success()"),
        job("plain", "a").condition("github.event_name == 'push'"),
        job("nested", "a").condition("github.event_name == 'push' || contains(toJSON(always()), 'x')"));
    Simulation s = run(w, push().withResult("a", FAILURE));
    assertThat(s.result("neg")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("plain")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(s, "plain")).isEqualTo("skipped: implicit success() is false: ancestor a failed");
    assertThat(s.result("nested")).isEqualTo(JobResult.SUCCESS);
  }

  @Test
  void failureIsTrueWhenAnyAncestorFailed() {
    Workflow w = workflow(job("a"), job("b", "a"), job("c", "b").condition("failure()"),
        job("d", "b").condition("always() && !failure()"));
    Simulation s = run(w, push().withResult("a", FAILURE));
    assertThat(s.result("b")).isEqualTo(JobResult.SKIPPED);
    assertThat(s.result("c")).isEqualTo(JobResult.SUCCESS);
    assertThat(reason(s, "c")).isEqualTo("success: ran (if `failure()` is true: failure() is true: ancestor a failed (via b))");
    assertThat(s.result("d")).isEqualTo(JobResult.SKIPPED);
    Simulation ok = run(w, push());
    assertThat(ok.result("c")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(ok, "c")).isEqualTo("skipped: if `failure()` is false: failure() is false: no ancestor failed");
  }

  @Test
  void needsResultIsForDirectDependenciesOnly() {
    Workflow w = workflow(job("a"), job("b", "a").condition("always()"),
        job("direct", "b").condition("always() && needs.b.result == 'success'"),
        job("indirect", "b").condition("always() && needs.a.result == 'failure'"),
        job("indirectNull", "b").condition("always() && needs.a == null"));
    Simulation s = run(w, push().withResult("a", FAILURE));
    assertThat(s.result("direct")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("indirect")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(s, "indirect")).isEqualTo("skipped: if `always() && needs.a.result == 'failure'` is false:"
        + " `needs.a.result == 'failure'` is false (needs.a.result is null)");
    assertThat(s.result("indirectNull")).isEqualTo(JobResult.SUCCESS);
  }

  @Test
  void needsResultHoldsEachOfGithubsFourWords() {
    Workflow w = workflow(job("s"), job("f"), job("c"), job("k").condition("false"),
        job("z", "s", "f", "c", "k").condition("always() && needs.s.result == 'success' && needs.f.result == 'failure'"
            + " && needs.c.result == 'cancelled' && needs.k.result == 'skipped'"));
    Simulation s = run(w, push().withResult("f", FAILURE).withResult("c", CANCELLED));
    assertThat(s.result("c")).isEqualTo(JobResult.CANCELLED);
    assertThat(s.result("z")).isEqualTo(JobResult.SUCCESS);
  }

  @Test
  void outputsOfDirectNeedsComeFromTheScenario() {
    Workflow w = workflow(job("policy").output("bypass", "${{ steps.p.outputs.bypass }}"),
        job("stage", "policy").condition("always() && needs.policy.outputs.bypass == 'true'"));
    assertThat(run(w, push().withOutput("policy", "bypass", "true")).result("stage")).isEqualTo(JobResult.SUCCESS);
    assertThat(run(w, push().withOutput("policy", "bypass", "false")).result("stage")).isEqualTo(JobResult.SKIPPED);
    Simulation unknown = run(w, push());
    assertThat(unknown.result("stage")).isEqualTo(JobResult.UNKNOWN);
    assertThat(reason(unknown, "stage")).isEqualTo("unknown: if `always() && needs.policy.outputs.bypass == 'true'` is"
        + " unknown: `needs.policy.outputs.bypass == 'true'` is unknown (needs.policy.outputs.bypass is not known to the"
        + " simulation)");
    // an output the job does not declare is null (empty), as on GitHub
    Workflow w2 = workflow(job("policy"), job("stage", "policy").condition("needs.policy.outputs.bypass == ''"));
    assertThat(run(w2, push()).result("stage")).isEqualTo(JobResult.SUCCESS);
  }

  @Test
  void aSkippedJobHasNoOutputs() {
    Workflow w = workflow(job("policy").condition("false").output("bypass", "x"),
        job("stage", "policy").condition("always() && needs.policy.outputs.bypass == 'true'"));
    Simulation s = run(w, push().withOutput("policy", "bypass", "true"));
    assertThat(s.result("stage")).isEqualTo(JobResult.SKIPPED);
  }

  @Test
  void cancelledIsTrueIffTheRunWasCancelled() {
    Workflow w = workflow(job("a"), job("b", "a"), job("c", "a").condition("cancelled()"), job("d", "a").condition("always()"));
    Simulation s = run(w, push().withRunCancelled(true));
    assertThat(s.result("a")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(s, "a")).isEqualTo("skipped: implicit success() is false: the run was cancelled");
    assertThat(s.result("c")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("d")).isEqualTo(JobResult.SUCCESS);
    assertThat(run(w, push()).result("c")).isEqualTo(JobResult.SKIPPED);
  }

  @Test
  void aMatrixJobsResultAggregatesItsLegs() {
    SourceLocation at = new SourceLocation("w.yml", 9, 5);
    Workflow w = workflow(job("m").matrix(Matrix.ofCount(3, true, at)), job("after", "m"));
    Simulation s = run(w, push().withLegResults("m", List.of(SUCCESS, FAILURE, SUCCESS)));
    assertThat(s.result("m")).isEqualTo(JobResult.FAILURE);
    assertThat(reason(s, "m")).isEqualTo("failure: ran (implicit success() is true: the job needs no job); it failed"
        + " (matrix leg 2 of 3)");
    assertThat(s.result("after")).isEqualTo(JobResult.SKIPPED);
    assertThat(run(w, push().withLegResults("m", List.of(SUCCESS, CANCELLED, SUCCESS))).result("m"))
        .isEqualTo(JobResult.CANCELLED);
    assertThat(run(w, push().withLegResults("m", List.of(CANCELLED, FAILURE, SUCCESS))).result("m"))
        .isEqualTo(JobResult.FAILURE);
    assertThat(run(w, push().withResult("m", FAILURE)).job("m").orElseThrow().reason()).endsWith("(all 3 matrix legs)");
    Workflow coe = workflow(job("m").matrix(Matrix.ofCount(2, false, at)).continueOnError(true), job("after", "m"));
    Simulation c = run(coe, push().withLegResults("m", List.of(FAILURE, SUCCESS)));
    assertThat(c.result("m")).isEqualTo(JobResult.SUCCESS);
    assertThat(c.result("after")).isEqualTo(JobResult.SUCCESS);
    assertThatThrownBy(() -> run(w, push().withLegResults("m", List.of(SUCCESS))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("the scenario gives 1 leg results for job 'm' of w.yml; expected 3, one per matrix leg");
  }

  @Test
  void anUndecidableIfIsUnknownAndPropagates() {
    Workflow w = workflow(job("a").condition("vars.RUN_GPU == 'true'"), job("b", "a"), job("c", "a").condition("failure()"),
        job("d", "a").condition("always()"), job("e", "a").condition("false && vars.X"));
    Simulation s = run(w, push());
    assertThat(s.result("a")).isEqualTo(JobResult.UNKNOWN);
    assertThat(reason(s, "a")).isEqualTo("unknown: if `vars.RUN_GPU == 'true'` is unknown: `vars.RUN_GPU == 'true'` is"
        + " unknown (vars.RUN_GPU is not known to the simulation)");
    assertThat(s.result("b")).isEqualTo(JobResult.UNKNOWN);
    assertThat(reason(s, "b")).isEqualTo("unknown: implicit success() is unknown: ancestor a's result is unknown");
    assertThat(s.result("c")).isEqualTo(JobResult.UNKNOWN);
    assertThat(s.result("d")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("e")).isEqualTo(JobResult.SKIPPED);
  }

  @Test
  void theEventIsVisibleToConditions() {
    Workflow w = workflow(job("labelled").condition(
            "contains(github.event.pull_request.labels.*.name, 'run-ci-gpu')"),
        job("closed").condition("github.event.action != 'closed'"),
        job("nightly").condition("github.event.schedule == '0 2 * * *'"),
        job("dispatch").condition("inputs.cadence == 'weekly'"),
        job("other").condition("github.event.pull_request.draft == false"));
    Event pr = new Event("pull_request", Optional.of("closed"), Optional.empty(), Map.of(), List.of("run-ci-gpu"),
        Optional.empty());
    Simulation s = run(w, Scenario.of(pr));
    assertThat(s.result("labelled")).isEqualTo(JobResult.SUCCESS);
    assertThat(s.result("closed")).isEqualTo(JobResult.SKIPPED);
    assertThat(s.result("nightly")).isEqualTo(JobResult.UNKNOWN);
    assertThat(s.result("dispatch")).isEqualTo(JobResult.UNKNOWN);
    assertThat(s.result("other")).isEqualTo(JobResult.UNKNOWN);
    Event cron = new Event("schedule", Optional.empty(), Optional.of("0 2 * * *"), Map.of(), List.of(), Optional.empty());
    assertThat(run(w, Scenario.of(cron)).result("nightly")).isEqualTo(JobResult.SUCCESS);
    assertThat(run(w, Scenario.of(cron)).result("labelled")).isEqualTo(JobResult.UNKNOWN);
    Event dispatch = new Event("workflow_dispatch", Optional.empty(), Optional.empty(), Map.of("cadence", "Weekly"),
        List.of(), Optional.empty());
    assertThat(run(w, Scenario.of(dispatch)).result("dispatch")).isEqualTo(JobResult.SUCCESS);
    // a whole payload is the whole of github.event: what it lacks is null, not unknown
    ExprValue payload = ExprValue.fromTree(Map.of("action", "opened", "pull_request", Map.of("draft", false,
        "labels", List.of())));
    Event full = new Event("pull_request", Optional.empty(), Optional.empty(), Map.of(), List.of(), Optional.of(payload));
    Simulation f = run(w, Scenario.of(full));
    assertThat(f.result("other")).isEqualTo(JobResult.SUCCESS);
    assertThat(f.result("labelled")).isEqualTo(JobResult.SKIPPED);
    assertThat(f.result("nightly")).isEqualTo(JobResult.SKIPPED);
  }

  @Test
  void anIfThatFailsToEvaluateFailsTheJob() {
    Workflow w = workflow(job("a").condition("fromJSON('nope')"), job("b", "a"));
    Simulation s = run(w, push());
    assertThat(s.result("a")).isEqualTo(JobResult.FAILURE);
    assertThat(reason(s, "a")).startsWith("failure: evaluating the if failed: expression 'fromJSON('nope')' column 1:");
    assertThat(s.result("b")).isEqualTo(JobResult.SKIPPED);
  }

  /** The reference project's bug: an image-resolution job with no if after a job that survives the CPU gate. */
  static Workflow reference(boolean fixed) {
    int[] l = {1};
    java.util.function.Function<String, Job.Builder> j =
        id -> Job.builder(id, new SourceLocation("pr-test.yml", l[0]++ * 10, 3));
    Job.Builder resolveImage = j.apply("resolve-ci-image").needs("docker-build");
    if (fixed) {
      resolveImage.condition("always() && needs.docker-build.result == 'success'");
    }
    return new Workflow("pr-test.yml", Optional.of("PR Test"), List.of(), List.of(
        j.apply("resolve-ci-policy").output("bypass_fastfail", "${{ steps.policy.outputs.bypass_fastfail }}").build(),
        j.apply("stage-a-cpu").needs("resolve-ci-policy").build(),
        j.apply("docker-build").needs("resolve-ci-policy", "stage-a-cpu")
            .condition("${{ always() && needs.resolve-ci-policy.result == 'success' && (needs.stage-a-cpu.result =="
                + " 'success' || needs.resolve-ci-policy.outputs.bypass_fastfail == 'true') }}").build(),
        resolveImage.build(),
        j.apply("stage-b-2-gpu").needs("resolve-ci-policy", "resolve-ci-image")
            .condition("always() && needs.resolve-ci-image.result == 'success'").build()));
  }

  @Test
  void theReferenceBugResolveCiImageIsSkippedWhenTheCpuGateFailsEvenWithBypass() {
    Scenario s = Scenario.of(Event.named("schedule")).withOutput("resolve-ci-policy", "bypass_fastfail", "true")
        .withResult("stage-a-cpu", FAILURE);
    Simulation buggy = run(reference(false), s);
    assertThat(buggy.result("docker-build")).isEqualTo(JobResult.SUCCESS);
    assertThat(buggy.result("resolve-ci-image")).isEqualTo(JobResult.SKIPPED);
    assertThat(reason(buggy, "resolve-ci-image"))
        .isEqualTo("skipped: implicit success() is false: ancestor stage-a-cpu failed (via docker-build)");
    assertThat(buggy.result("stage-b-2-gpu")).isEqualTo(JobResult.SKIPPED);
    Simulation fixed = run(reference(true), s);
    assertThat(fixed.result("resolve-ci-image")).isEqualTo(JobResult.SUCCESS);
    assertThat(fixed.result("stage-b-2-gpu")).isEqualTo(JobResult.SUCCESS);
    // without bypass, the gate does its job in both variants
    Scenario noBypass = s.withOutput("resolve-ci-policy", "bypass_fastfail", "false");
    assertThat(run(reference(true), noBypass).result("stage-b-2-gpu")).isEqualTo(JobResult.SKIPPED);
    assertThat(run(reference(true), noBypass).result("docker-build")).isEqualTo(JobResult.SKIPPED);
  }

  @Test
  void exhaustiveModeVariesEveryJobThatRuns() {
    Workflow chain = workflow(job("a"), job("b", "a"));
    List<Simulation> all = WorkflowSimulator.of(chain).exhaustive(push());
    assertThat(all).extracting(s -> s.scenario().results().keySet().stream().sorted().collect(Collectors.joining(",")))
        .containsExactly("", "b", "a");
    assertThat(all.get(2).result("b")).isEqualTo(JobResult.SKIPPED);
    List<Job.Builder> twelve = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      twelve.add(job("j" + i));
    }
    assertThat(WorkflowSimulator.of(workflow(twelve.toArray(Job.Builder[]::new))).exhaustive(push())).hasSize(4096);
    // a pinned result is not varied; a job that never runs is not varied
    Workflow w = workflow(job("a"), job("b", "a"), job("never").condition("false"));
    List<Simulation> pinned = WorkflowSimulator.of(w).exhaustive(push().withResult("a", SUCCESS));
    assertThat(pinned).hasSize(2);
    Set<String> distinct = pinned.stream().map(s -> s.jobs().toString()).collect(Collectors.toSet());
    assertThat(distinct).hasSize(2);
  }

  @Test
  void exhaustiveModeOnTheReferenceFindsTheBypassBug() {
    Scenario s = Scenario.of(Event.named("schedule")).withOutput("resolve-ci-policy", "bypass_fastfail", "true");
    List<Simulation> buggy = WorkflowSimulator.of(reference(false)).exhaustive(s);
    assertThat(buggy).anySatisfy(sim -> {
      assertThat(sim.scenario().results()).containsOnlyKeys("stage-a-cpu");
      assertThat(sim.result("stage-b-2-gpu")).isEqualTo(JobResult.SKIPPED);
    });
    List<Simulation> fixed = WorkflowSimulator.of(reference(true)).exhaustive(s);
    assertThat(fixed).filteredOn(sim -> sim.scenario().results().keySet().equals(Set.of("stage-a-cpu")))
        .singleElement().satisfies(sim -> assertThat(sim.result("stage-b-2-gpu")).isEqualTo(JobResult.SUCCESS));
  }

  @Test
  void aScenarioNamingAnotherJobIsRejected() {
    assertThatThrownBy(() -> run(workflow(job("a")), push().withResult("nope", FAILURE)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("the scenario names job 'nope', which workflow w.yml does not have; expected one of [a]");
  }

  @Test
  void aWorkflowIsAValidGraphWhenBuilt() {
    assertThatThrownBy(() -> workflow(job("a", "b"), job("b", "a")))
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("Workflow.jobs: the needs form a cycle a -> b -> a; expected an acyclic graph");
    assertThatThrownBy(() -> workflow(job("a", "x")))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageEndingWith("needs 'x', which is not a job of the workflow; expected one of [a]");
    assertThatThrownBy(() -> workflow(job("a"), job("a")))
        .isInstanceOf(InvalidValueException.class).hasMessageMatching("Workflow.jobs: job id 'a' at w.yml:\\d+:3 is used twice");
    assertThatThrownBy(() -> job("a", "a").build()).isInstanceOf(InvalidValueException.class)
        .hasMessage("Job.needs[0]: job 'a' cannot need itself");
    assertThatThrownBy(() -> Matrix.ofCount(0, true, new SourceLocation("w.yml", 1, 1)))
        .isInstanceOf(InvalidValueException.class).hasMessage("Matrix.legs: must be at least 1, got 0");
  }

  @Test
  void everyConstructKeepsItsPosition() {
    Workflow w = reference(false);
    assertThat(w.job("docker-build").orElseThrow().location()).isEqualTo(new SourceLocation("pr-test.yml", 40, 3));
    assertThat(w.job("docker-build").orElseThrow().condition().orElseThrow().location())
        .isEqualTo(new SourceLocation("pr-test.yml", 40, 3));
    assertThat(w.job("resolve-ci-policy").orElseThrow().outputs().get(0).location().line()).isEqualTo(20);
    assertThat(w.jobs()).extracting(Job::id).containsExactly("resolve-ci-policy", "stage-a-cpu", "docker-build",
        "resolve-ci-image", "stage-b-2-gpu");
  }
}

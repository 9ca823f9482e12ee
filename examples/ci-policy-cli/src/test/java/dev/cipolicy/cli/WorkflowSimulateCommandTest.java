package dev.cipolicy.cli;

import static dev.cipolicy.cli.CliTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.cli.CliTestSupport.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkflowSimulateCommandTest {
  static final String BUGGY = "examples/workflows/model/buggy.yml";
  static final String FIXED = "examples/workflows/model/fixed.yml";

  private static Result simulate(String workflow, String... more) {
    List<String> args = new ArrayList<>(List.of("workflow", "simulate", "--workflow", workflow, "--event", "schedule",
        "--schedule", "0 15 * * 0-5", "--result", "stage-a-cpu=failure", "--output", "policy.bypass_fastfail=true"));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  @Test
  void theBuggyWorkflowSkipsTheGpuStagesBecauseOfTheCpuStageViaDockerBuild() {
    Result r = simulate(BUGGY, "--output", "policy.skipped_stages=");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out().lines()).containsExactly(
        "policy: success (ran (implicit success() and if `github.event.action != 'closed'` are true:"
            + " `github.event.action != 'closed'` is true (github.event.action is null)))",
        "stage-a-cpu: failure (ran (implicit success() is true: ancestor policy succeeded); it failed)",
        r.out().lines().toList().get(2),
        "resolve-ci-image: skipped (implicit success() is false: ancestor stage-a-cpu failed (via docker-build))",
        r.out().lines().toList().get(4),
        r.out().lines().toList().get(5));
    assertThat(r.out().lines().toList().get(2)).startsWith("docker-build: success (");
    assertThat(r.out().lines().toList().get(4)).startsWith("stage-b-gpu: skipped (")
        .contains("needs.resolve-ci-image.result is 'skipped'");
    assertThat(r.out().lines().toList().get(5)).startsWith("stage-c-gpu: skipped (")
        .contains("needs.resolve-ci-image.result is 'skipped'");
  }

  @Test
  void theFixedWorkflowRunsTheGpuStages() {
    Result r = simulate(FIXED, "--output", "policy.skipped_stages=");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines()).filteredOn(l -> l.startsWith("resolve-ci-image: ") || l.startsWith("stage-"))
        .extracting(l -> l.substring(0, l.indexOf(" (")))
        .containsExactly("stage-a-cpu: failure", "resolve-ci-image: success", "stage-b-gpu: success",
            "stage-c-gpu: success");
    // without the skip list, the stages depend on an output the scenario does not give: unknown, and why
    Result unknown = simulate(FIXED);
    assertThat(unknown.out().lines()).filteredOn(l -> l.startsWith("stage-b-gpu: ")).singleElement()
        .satisfies(l -> assertThat(l).startsWith("stage-b-gpu: unknown (")
            .contains("needs.policy.outputs.skipped_stages is not known to the simulation"));
  }

  @Test
  void jsonListsEveryJobInFileOrder() throws Exception {
    Result r = simulate(BUGGY, "--output", "policy.skipped_stages=", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode root = new ObjectMapper().readTree(r.out());
    assertThat(root.fieldNames()).toIterable().containsExactly("jobs");
    List<String> ids = new ArrayList<>();
    root.get("jobs").forEach(j -> {
      assertThat(j.fieldNames()).toIterable().containsExactly("job", "result", "reason");
      ids.add(j.get("job").asText());
    });
    assertThat(ids).containsExactly("policy", "stage-a-cpu", "docker-build", "resolve-ci-image", "stage-b-gpu",
        "stage-c-gpu");
    JsonNode image = root.get("jobs").get(3);
    assertThat(image.get("result").asText()).isEqualTo("skipped");
    assertThat(image.get("reason").asText())
        .isEqualTo("skipped: implicit success() is false: ancestor stage-a-cpu failed (via docker-build)");
  }

  @Test
  void exhaustiveModeListsEveryScenario() throws Exception {
    Result r = run("workflow", "simulate", "--workflow", BUGGY, "--event", "schedule", "--output",
        "policy.bypass_fastfail=true", "--output", "policy.skipped_stages=", "--exhaustive", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode scenarios = new ObjectMapper().readTree(r.out()).get("scenarios");
    assertThat(scenarios.size()).isGreaterThan(4);
    List<String> found = new ArrayList<>();
    scenarios.forEach(s -> {
      assertThat(s.get("scenario").get("event").asText()).isEqualTo("schedule");
      assertThat(s.get("jobs").size()).isEqualTo(6);
      if (s.get("scenario").get("results").size() == 1 && s.get("scenario").get("results").has("stage-a-cpu")) {
        found.add(s.get("jobs").get(4).get("result").asText());
      }
    });
    // the scenario where only the CPU stage fails: the bug
    assertThat(found).containsExactly("skipped");
    Result human = run("workflow", "simulate", "--workflow", FIXED, "--event", "schedule", "--output",
        "policy.bypass_fastfail=true", "--output", "policy.skipped_stages=", "--exhaustive");
    assertThat(human.out().lines().filter(l -> l.startsWith("scenario ")).toList())
        .contains("scenario 1 of " + human.out().lines().filter(l -> l.startsWith("scenario ")).count()
            + ": every job that runs succeeds");
    assertThat(human.out()).contains("  stage-b-gpu: success (");
  }

  @Test
  void eventFlagsAndPayloadReachTheExpressions(@TempDir Path tmp) throws Exception {
    Result closed = run("workflow", "simulate", "--workflow", BUGGY, "--event", "pull_request", "--action", "closed");
    assertThat(closed.code()).isZero();
    assertThat(closed.out().lines()).allSatisfy(l -> assertThat(l).contains(": skipped ("));
    Path payload = tmp.resolve("event.json");
    Files.writeString(payload, "{\"action\": \"closed\", \"number\": 5}", StandardCharsets.UTF_8);
    Result fromPayload = run("workflow", "simulate", "--workflow", CliTestSupport.REPO.resolve(BUGGY).toString(),
        "--event", "pull_request", "--event-payload", payload.toString());
    assertThat(fromPayload.out()).isEqualTo(closed.out());
  }

  @Test
  void inputErrorsAreOneErrorLineAndExitOne(@TempDir Path tmp) throws Exception {
    Result unknownJob = simulate(BUGGY, "--result", "nope=failure");
    assertThat(unknownJob.code()).isEqualTo(1);
    assertThat(unknownJob.out()).isEmpty();
    assertThat(unknownJob.err()).isEqualTo("::error::--result nope=failure: no job 'nope' in " + BUGGY
        + "; expected one of [policy, stage-a-cpu, docker-build, resolve-ci-image, stage-b-gpu, stage-c-gpu]\n");
    assertThat(simulate(BUGGY, "--result", "policy=skipped").err())
        .contains("unknown result 'skipped'; expected success, failure or cancelled");
    assertThat(simulate(BUGGY, "--output", "policy=1").err()).contains("--output policy: expected JOB.KEY=VALUE");
    Path bad = tmp.resolve("bad.yml");
    Files.writeString(bad, "on: push\njobs:\n  a:\n    if: ${{ 1 == }}\n", StandardCharsets.UTF_8);
    Result badIf = run("workflow", "simulate", "--workflow", bad.toString(), "--event", "push");
    assertThat(badIf.code()).isEqualTo(1);
    assertThat(badIf.err().lines()).singleElement().satisfies(l -> assertThat(l)
        .startsWith("::error file=" + bad.toString().replace(":", "%3A").replace(",", "%2C")
            + ",line=4,col=9,title=workflow::expression '${{ 1 == }}' column 10: unexpected end of expression"));
    Result missing = run("workflow", "simulate", "--workflow", tmp.resolve("none.yml").toString(), "--event", "push");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).startsWith("::error::cannot read workflow file").contains("no such file");
    Result remote = run("workflow", "simulate", "--workflow", write(tmp, "r.yml",
        "on: push\njobs:\n  a:\n    uses: o/r/.github/workflows/x.yml@v1\n"), "--event", "push");
    assertThat(remote.code()).isZero();
    assertThat(remote.err()).contains(",line=4,col=11,title=workflow-model::job 'a': calls the remote reusable"
        + " workflow 'o/r/.github/workflows/x.yml@v1'; the simulation treats it as one opaque job");
    assertThat(remote.out()).startsWith("a: success (");
  }

  @Test
  void usageErrorsExitTwo() {
    assertThat(run("workflow", "simulate", "--event", "push").code()).isEqualTo(2);
    assertThat(run("workflow", "simulate", "--workflow", BUGGY).code()).isEqualTo(2);
    Result group = run("workflow");
    assertThat(group.code()).isZero();
    assertThat(group.out()).contains("simulate");
  }

  private static String write(Path dir, String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p.toString();
  }

  static final String FIXED_SET = "examples/workflows/model/fixed/pr-test.yml";
  static final String MILES = "examples/policies/miles.yaml";

  private static List<String> stages(Result r) {
    return r.out().lines().filter(l -> l.startsWith("stage-") || l.startsWith("docker-build: "))
        .map(l -> l.substring(0, l.indexOf(" ("))).toList();
  }

  @Test
  void withAPolicyThePolicyJobsOutputsAreResolvedForTheEvent() {
    String[] nightly = {"workflow", "simulate", "--workflow", FIXED_SET, "--event", "schedule", "--schedule",
        "0 15 * * 0-5", "--result", "stage-a-cpu=failure"};
    Result bare = run(nightly);
    assertThat(bare.code()).as(bare.err()).isZero();
    assertThat(stages(bare)).contains("stage-b-2-gpu-h200: unknown");
    List<String> resolved = new ArrayList<>(List.of(nightly));
    resolved.addAll(List.of("--policy", MILES));
    Result r = run(resolved.toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isZero();
    // the nightly cadence bypasses the fast-fail gate: the GPU stages run after the failed CPU stage
    assertThat(stages(r)).contains("docker-build: success", "stage-b-2-gpu-h200: success")
        .noneMatch(l -> l.endsWith(": unknown"));
    // the same as giving every output by hand
    List<String> byHand = new ArrayList<>(List.of(nightly));
    byHand.addAll(List.of("--output", "resolve-ci-policy.cadence=nightly", "--output", "resolve-ci-policy.raw_labels=",
        "--output", "resolve-ci-policy.bypass_fastfail=true", "--output", "resolve-ci-policy.skipped_stages=[]"));
    assertThat(run(byHand.toArray(String[]::new)).out()).isEqualTo(r.out());
    // an explicit output wins over the resolved one
    resolved.addAll(List.of("--output", "resolve-ci-policy.bypass_fastfail=false"));
    Result pinned = run(resolved.toArray(String[]::new));
    assertThat(stages(pinned)).contains("docker-build: skipped", "stage-b-2-gpu-h200: skipped");
  }

  @Test
  void registrationsGiveTheSkippedStagesAndNeedAPolicy() {
    Result r = run("workflow", "simulate", "--workflow", FIXED_SET, "--event", "pull_request", "--action", "opened",
        "--policy", MILES, "--registrations", "examples/registrations/miles.yaml");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(stages(r)).noneMatch(l -> l.endsWith(": unknown"));
    Result noPolicy = run("workflow", "simulate", "--workflow", FIXED_SET, "--event", "push", "--registrations",
        "examples/registrations/miles.yaml");
    assertThat(noPolicy.code()).isEqualTo(1);
    assertThat(noPolicy.err()).contains("--registrations needs --policy");
  }

  @Test
  void aPolicyWithoutRolesForTheFileIsAnInputError() {
    Result r = run("workflow", "simulate", "--workflow", BUGGY, "--event", "push", "--policy", MILES);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines()).singleElement().satisfies(l -> assertThat(l).startsWith("::error::")
        .contains("declares no workflows.<name>.roles with file: buggy.yml"));
  }

  @Test
  void exhaustiveRefusesPastItsCapAndSaysHowToNarrowTheScenarios(@TempDir Path tmp) throws Exception {
    StringBuilder text = new StringBuilder("on: push\njobs:\n");
    for (int i = 0; i < 20; i++) {
      text.append("  j").append(i).append(": {runs-on: x}\n");
    }
    Path w = Files.writeString(tmp.resolve("w.yml"), text, StandardCharsets.UTF_8);
    Result r = run("workflow", "simulate", "--workflow", w.toString(), "--event", "push", "--exhaustive");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines()).singleElement().satisfies(l -> assertThat(l).contains("stops at 250000 job outcomes")
        .contains("--result JOB=success pins a job"));
  }
}

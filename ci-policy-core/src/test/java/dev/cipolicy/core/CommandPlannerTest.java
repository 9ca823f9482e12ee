package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.JobPlan;
import dev.cipolicy.api.suite.PlannedJob;
import dev.cipolicy.api.suite.RunFacts;
import dev.cipolicy.core.load.PolicyLoader;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The job plans of the reference policy's runs ({@link CommandPlanner}): rendered commands, names, errors. */
class CommandPlannerTest {
  private static final StageSelection NOTHING_SKIPPED = new StageSelection(List.of(), List.of(), Optional.empty(),
      new Explanation("test", List.of(), List.of()));
  private static final RunPolicy NIGHTLY = ReferencePolicy.resolver().resolveCadence("nightly",
      List.of("run-ci-lora", "bypass-fastfail"));
  private static final RunFacts FACTS = RunFacts.builder().commit("0123456789abcdef0123456789abcdef01234567")
      .runId("9876543210").attempt(2).cadence(NIGHTLY.cadence()).labels(NIGHTLY.rawLabels())
      .imageTag("nightly-260101").build();
  private static final List<JobPlan> JOBS = CommandPlanner.of(ReferencePolicy.loaded().policy())
      .plan(SuitePlanner.of(ReferencePolicy.registry()).plan(NIGHTLY, NOTHING_SKIPPED), FACTS);

  private static JobPlan job(String name) {
    return JOBS.stream().filter(j -> j.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void anH200ShardRunsRunSuiteInTheCiImageWithItsCudaDevices() {
    JobPlan j = job("stage-c-4-gpu-h200-1of3");
    assertThat(j.argv()).containsExactly("python", "tests/ci/run_suite.py", "--hw", "cuda", "--suite",
        "stage-c-4-gpu-h200", "--auto-partition-id", "1", "--auto-partition-size", "3", "--cadence", "nightly",
        "--labels", "run-ci-lora,bypass-fastfail");
    assertThat(j.image()).contains("radixark/miles:nightly-260101");
    assertThat(j.env()).containsExactly(Map.entry("CI_RUN_ID", "9876543210"),
        Map.entry("CI_COMMIT", "0123456789abcdef0123456789abcdef01234567"));
    assertThat(j.deviceEnv()).containsExactly("CUDA_VISIBLE_DEVICES");
    assertThat(j.backend()).isEqualTo("cuda");
    assertThat(j.pool()).contains("h200");
    assertThat(j.gpus()).isEqualTo(4);
    assertThat(j.estimatedSeconds()).isEqualTo(700);
    assertThat(j.timeoutSeconds()).isEqualTo(1800);
    assertThat(j.cadence()).isEqualTo("nightly");
  }

  @Test
  void anMi350ShardGetsTheRocmDeviceVariables() {
    JobPlan j = job("stage-c-4-gpu-mi350-0of2");
    assertThat(j.argv()).containsExactly("python", "tests/ci/run_suite.py", "--hw", "rocm", "--suite",
        "stage-c-4-gpu-mi350", "--auto-partition-id", "0", "--auto-partition-size", "2", "--cadence", "nightly",
        "--labels", "run-ci-lora,bypass-fastfail");
    assertThat(j.deviceEnv()).containsExactly("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES");
    assertThat(j.pool()).contains("mi350");
    assertThat(j.timeoutSeconds()).isEqualTo(2125);
  }

  @Test
  void aCpuShardRunsOnTheHostWithoutDevices() {
    JobPlan j = job("stage-a-cpu-0of4");
    assertThat(j.image()).isEmpty();
    assertThat(j.deviceEnv()).isEmpty();
    assertThat(j.gpus()).isZero();
    assertThat(j.argv()).contains("--hw", "cpu");
  }

  @Test
  void everyPlannedJobGetsOnePlanInOrderWithAUniqueName() {
    List<PlannedJob> planned = SuitePlanner.of(ReferencePolicy.registry()).plan(NIGHTLY, NOTHING_SKIPPED);
    assertThat(JOBS).extracting(JobPlan::name).doesNotHaveDuplicates()
        .containsExactlyElementsOf(planned.stream().map(p -> p.suite() + "-" + p.shardIndex() + "of"
            + p.shardCount()).toList());
  }

  private static final String MINI = """
      name: mini
      cadences:
        nightly: {admit_nightly_tests: true, bypass_fastfail: true, write_baseline: true}
      backends:
        cpu:
          run:
            command: [run, "{suite}", "--pr={pr}", "{{literal}}", "{timeout_minutes}m", "{gpus}", "{job}",
                      "{attempt}", "{run_id}"]
          suites:
            unit: {github_hosted: true, shards: 2}
            lint: {github_hosted: true}
        gpu:
          gpu: true
          device_env: [CUDA_VISIBLE_DEVICES]
          suites:
            e2e: {gpus: 2, runner_labels: [a100], run: {command: [e2e, "{shard}/{shards}"], image: "img:{image_tag}"}}
      """;

  private static PlannedJob planned(String backend, String suite, int shard, int shards, long timeout) {
    return new PlannedJob(backend, suite, shard, shards, List.of("t.py"), backend.equals("gpu") ? 2 : 0,
        Optional.empty(), 10, timeout);
  }

  @Test
  void everyPlaceholderRendersAndBracesEscape() {
    CommandPlanner planner = CommandPlanner.of(PolicyLoader.load("mini.yaml", MINI).policy());
    RunFacts facts = RunFacts.builder().commit("abcdef0").runId("r-1").cadence("nightly").pr(42).build();
    List<JobPlan> plans = planner.plan(List.of(planned("cpu", "unit", 1, 2, 1801), planned("gpu", "e2e", 0, 1, 60)),
        facts);
    assertThat(plans.get(0).argv()).containsExactly("run", "unit", "--pr=42", "{literal}", "31m", "0",
        "unit-1of2", "1", "r-1");
    assertThat(plans.get(1).argv()).containsExactly("e2e", "0/1");
    assertThat(plans.get(1).image()).contains("img:latest");
    assertThat(planner.plan(List.of(planned("cpu", "unit", 0, 2, 60)), RunFacts.builder().commit("abcdef0")
        .runId("r").cadence("nightly").build()).get(0).argv()).contains("--pr=", "1m");
  }

  @Test
  void aSuiteWithoutACommandAnUnknownSuiteAndARepeatedShardAreRefused() {
    CommandPlanner planner = CommandPlanner.of(PolicyLoader.load("mini.yaml", MINI.replace(
        "run: {command: [e2e, \"{shard}/{shards}\"], image: \"img:{image_tag}\"}", "description: no command"))
        .policy());
    RunFacts facts = RunFacts.builder().commit("abcdef0").runId("r").cadence("nightly").build();
    assertThatThrownBy(() -> planner.plan(List.of(planned("gpu", "e2e", 0, 1, 60)), facts))
        .isInstanceOf(InvalidInputException.class).hasMessage("suite e2e declares no run command; declare"
            + " backends.gpu.run or backends.gpu.suites.e2e.run");
    assertThatThrownBy(() -> planner.plan(List.of(planned("cpu", "nope", 0, 1, 60)), facts))
        .isInstanceOf(InvalidInputException.class).hasMessage("planned job names suite 'nope', which backend cpu"
            + " of policy mini does not declare");
    assertThatThrownBy(() -> planner.plan(List.of(planned("cpu", "unit", 0, 2, 60), planned("cpu", "unit", 0, 2,
        60)), facts)).isInstanceOf(InvalidInputException.class).hasMessage("the planned jobs list shard 0 of suite"
            + " unit twice; expected each shard once");
  }

  @Test
  void runFactsRefuseALabelThatCannotBeCommaJoinedAndABadCommit() {
    assertThatThrownBy(() -> RunFacts.builder().commit("main").runId("r").cadence("nightly")
        .labels(List.of("a,b")).build()).isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("commit 'main' is not a commit id; expected [0-9a-f]{7,64}")
        .hasMessageContaining("label 'a,b' cannot be passed comma-joined");
  }
}

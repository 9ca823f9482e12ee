package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.run.TriggerInput;
import dev.cipolicy.api.run.TriggerResolution;
import dev.cipolicy.api.stage.StageSelection;
import dev.cipolicy.api.suite.PlannedJob;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The jobs of a resolved run of the reference policy and registrations: {@link SuitePlanner}. */
class SuitePlannerTest {
  private static final SuitePlanner PLANNER = SuitePlanner.of(ReferencePolicy.registry());
  private static final StageSelection NOTHING_SKIPPED = skipping();

  private static StageSelection skipping(String... stages) {
    return new StageSelection(List.of(stages), List.of(), Optional.empty(), new Explanation("test", List.of(),
        List.of()));
  }

  private static String shown(PlannedJob j) {
    return j.suite() + " " + j.shardIndex() + "/" + j.shardCount() + " " + j.tests().stream()
        .map(f -> f.substring(f.lastIndexOf('/') + 1)).toList() + " gpus=" + j.gpus() + " pool="
        + j.pool().orElse("-") + " est=" + Math.round(j.estimatedSeconds()) + " timeout=" + j.timeoutSeconds();
  }

  @Test
  void aNightlyPlansEverySelectedShardWithItsBudgetPoolEstimateAndTimeout() {
    RunPolicy nightly = ReferencePolicy.resolver().resolveCadence("nightly", List.of());
    assertThat(PLANNER.plan(nightly, NOTHING_SKIPPED)).extracting(SuitePlannerTest::shown).containsExactly(
        "stage-a-cpu 0/4 [test_run_suite.py] gpus=0 pool=- est=45 timeout=1800",
        "stage-a-cpu 1/4 [test_ci_policy.py] gpus=0 pool=- est=30 timeout=1800",
        "stage-a-cpu 2/4 [test_stage_selection.py] gpus=0 pool=- est=20 timeout=1800",
        "stage-a-cpu 3/4 [test_file_run.py] gpus=0 pool=- est=15 timeout=1800",
        "stage-b-cpu 0/1 [test_checkpoint_convert.py, test_gate.py] gpus=0 pool=- est=420 timeout=1800",
        "stage-b-2-gpu-h200 0/1 [test_weight_update.py, test_precision.py] gpus=2 pool=h200 est=420 timeout=1800",
        "stage-c-8-gpu-h100 0/2 [test_megatron_long.py] gpus=8 pool=h100 est=5400 timeout=6750",
        "stage-c-8-gpu-h100 1/2 [test_megatron_short.py] gpus=8 pool=h100 est=1500 timeout=1875",
        "stage-c-8-gpu-h200 0/2 [test_fully_async.py] gpus=8 pool=h200 est=1800 timeout=2250",
        "stage-c-8-gpu-h200 1/2 [test_sglang_rollout.py] gpus=8 pool=h200 est=1200 timeout=1800",
        "stage-c-4-gpu-h200 0/3 [test_fsdp_short.py] gpus=4 pool=h200 est=900 timeout=1800",
        "stage-c-4-gpu-h200 1/3 [test_lora.py] gpus=4 pool=h200 est=700 timeout=1800",
        "stage-c-4-gpu-h200 2/3 [test_eval.py] gpus=4 pool=h200 est=400 timeout=1800",
        "stage-c-2-gpu-h200 0/2 [test_ft_short.py] gpus=2 pool=h200 est=600 timeout=1800",
        "stage-c-2-gpu-h200 1/2 [test_mooncake.py] gpus=2 pool=h200 est=450 timeout=1800",
        "stage-c-8-gpu-b200 0/1 [test_qwen35.py, test_model_scripts.py] gpus=8 pool=b200 est=3700 timeout=4625",
        "stage-c-4-gpu-mi350 0/2 [test_megatron_short.py] gpus=4 pool=mi350 est=1700 timeout=2125",
        "stage-c-4-gpu-mi350 1/2 [test_amd_kernels.py] gpus=4 pool=mi350 est=800 timeout=1800",
        "nightly-stage-c-8-gpu-mi350 0/1 [test_amd_long.py] gpus=8 pool=mi350 est=4000 timeout=5000",
        "nightly-stage-c-2-gpu-mi350 0/1 [test_miles_plugin.py] gpus=2 pool=mi350 est=300 timeout=1800");
  }

  @Test
  void eachShardRunsWhatPlanSuitePlansForIt() {
    SuiteRegistry registry = ReferencePolicy.registry();
    RunPolicy weekly = ReferencePolicy.resolver().resolveCadence("weekly", List.of());
    for (PlannedJob job : PLANNER.plan(weekly, NOTHING_SKIPPED)) {
      var plan = registry.plan(job.backend(), job.suite(), weekly, false,
          Optional.of(new dev.cipolicy.api.suite.SuiteRunPlan.Shard(job.shardIndex(), job.shardCount())));
      assertThat(job.tests()).as(shown(job)).isEqualTo(plan.enabled());
      assertThat(job.estimatedSeconds()).isEqualTo(plan.estTotalSeconds());
    }
  }

  @Test
  void skippedStagesAndEmptyShardsAreNotPlanned() {
    RunPolicy pr = ReferencePolicy.resolver().resolveCadence("regular", List.of("run-ci-megatron"));
    assertThat(PLANNER.plan(pr, skipping("stage-c-8-gpu-b200", "stage-c-4-gpu-mi350")))
        .extracting(SuitePlannerTest::shown).containsExactly(
            "stage-a-cpu 0/4 [test_run_suite.py] gpus=0 pool=- est=45 timeout=1800",
            "stage-a-cpu 1/4 [test_ci_policy.py] gpus=0 pool=- est=30 timeout=1800",
            "stage-a-cpu 2/4 [test_stage_selection.py] gpus=0 pool=- est=20 timeout=1800",
            "stage-a-cpu 3/4 [test_file_run.py] gpus=0 pool=- est=15 timeout=1800",
            "stage-b-cpu 0/1 [test_gate.py] gpus=0 pool=- est=120 timeout=1800",
            "stage-c-8-gpu-h100 0/2 [test_megatron_short.py] gpus=8 pool=h100 est=1500 timeout=1875");
  }

  @Test
  void aPullRequestNeverPlansAnExternallyScheduledSuite() {
    RunPolicy pr = ReferencePolicy.resolver().resolveCadence("regular", List.of("run-ci-amd", "run-ci-miles-plugin"));
    assertThat(PLANNER.plan(pr, NOTHING_SKIPPED)).extracting(PlannedJob::suite)
        .contains("stage-c-4-gpu-mi350").noneMatch(s -> s.startsWith("nightly-"));
  }

  @Test
  void aManualDispatchMatchesEveryLabelOnGpuStages() {
    TriggerResolution dispatch = ReferencePolicy.resolver().resolve(TriggerInput.builder()
        .eventName("workflow_dispatch").build());
    assertThat(dispatch.matchAllLabels()).isTrue();
    List<PlannedJob> jobs = PLANNER.plan(dispatch, NOTHING_SKIPPED);
    assertThat(jobs).extracting(j -> j.suite() + " " + j.shardIndex()).contains("stage-c-8-gpu-b200 0",
        "stage-c-4-gpu-h200 2");
    assertThat(jobs).isEqualTo(PLANNER.plan(dispatch.runPolicy(), true, NOTHING_SKIPPED))
        .isNotEqualTo(PLANNER.plan(dispatch.runPolicy(), NOTHING_SKIPPED));
  }

  @Test
  void theSameRunGivesTheSameJobs() {
    RunPolicy nightly = ReferencePolicy.resolver().resolveCadence("nightly", List.of());
    assertThat(SuitePlanner.of(ReferencePolicy.registry()).plan(nightly, NOTHING_SKIPPED))
        .isEqualTo(PLANNER.plan(nightly, NOTHING_SKIPPED));
  }
}

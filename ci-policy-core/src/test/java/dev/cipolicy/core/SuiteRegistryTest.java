package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.RegistrationException;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.api.suite.Registration;
import dev.cipolicy.api.suite.SkippedTest;
import dev.cipolicy.api.suite.SuiteRunPlan;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Suite selection, sharding and run plans on the reference policy and registrations. */
class SuiteRegistryTest {
  private final SuiteRegistry registry = ReferencePolicy.registry();
  private final PolicyResolver resolver = ReferencePolicy.resolver();

  private static Registration reg(String file, double est) {
    return Registration.builder().file(file).backend("cuda").suite("stage-c-4-gpu-h200").estTimeSeconds(est)
        .addLabels("fsdp").build();
  }

  @Test
  void theWorkedShardingExampleOfTheSpec() {
    List<Registration> tests = List.of(reg("a", 10), reg("b", 8), reg("c", 6), reg("d", 4), reg("e", 2), reg("f", 6));
    assertThat(SuiteRegistry.shard(tests, 0, 2)).extracting(Registration::file).containsExactly("a", "f", "e");
    assertThat(SuiteRegistry.shard(tests, 1, 2)).extracting(Registration::file).containsExactly("b", "c", "d");
  }

  @Test
  void degenerateShardRequestsAreEmpty() {
    List<Registration> tests = List.of(reg("a", 10));
    assertThat(SuiteRegistry.shard(tests, 0, 0)).isEmpty();
    assertThat(SuiteRegistry.shard(tests, 2, 2)).isEmpty();
    assertThat(SuiteRegistry.shard(tests, -1, 2)).isEmpty();
    assertThat(SuiteRegistry.shard(List.of(), 0, 1)).isEmpty();
  }

  @Test
  void aRegularPrSelectsOnlyTestsOfItsLabels() {
    RunPolicy p = resolver.resolveCadence("regular", List.of("run-ci-fsdp"));
    SuiteRegistry.Selection s = registry.select("cuda", "stage-c-4-gpu-h200", p, false);
    assertThat(s.enabled()).extracting(Registration::file).containsExactly("tests/e2e/test_fsdp_short.py");
    assertThat(s.skipped()).isEmpty();
  }

  @Test
  void unlabeledCpuTestsAlwaysRun() {
    RunPolicy p = resolver.resolveCadence("regular", List.of());
    assertThat(registry.select("cpu", "stage-a-cpu", p, false).enabled()).extracting(Registration::file)
        .containsExactly("tests/fast/test_run_suite.py", "tests/fast/test_ci_policy.py",
            "tests/fast/test_stage_selection.py", "tests/fast/test_file_run.py");
  }

  @Test
  void aDisabledTestIsSkippedWithItsReasonOnlyWhenItWouldHaveBeenSelected() {
    RunPolicy replay = resolver.resolveCadence("regular", List.of("run-ci-replay"));
    assertThat(registry.select("cuda", "stage-c-4-gpu-h200", replay, false).skipped())
        .containsExactly(new SkippedTest("tests/e2e/test_replay.py", "flaky replay buffer, tracked in #2511"));
    RunPolicy lora = resolver.resolveCadence("regular", List.of("run-ci-lora"));
    assertThat(registry.select("cuda", "stage-c-4-gpu-h200", lora, false).skipped()).isEmpty();
  }

  @Test
  void nightlyOnlyTestsNeedAdmission() {
    RunPolicy regularAll = resolver.resolveCadence("regular", List.of("run-ci-all"));
    RunPolicy weekly = resolver.resolveCadence("weekly", List.of());
    RunPolicy nightly = resolver.resolveCadence("nightly", List.of());
    assertThat(registry.select("cuda", "stage-c-8-gpu-h100", regularAll, false).enabled())
        .extracting(Registration::file).containsExactly("tests/e2e/test_megatron_short.py");
    assertThat(registry.select("cuda", "stage-c-8-gpu-h100", weekly, false).enabled())
        .extracting(Registration::file).containsExactly("tests/e2e/test_megatron_long.py", "tests/e2e/test_megatron_short.py");
    // nightly admits nightly-only tests but its scope leaves out 'long'; megatron is still included
    assertThat(registry.select("cuda", "stage-c-8-gpu-h100", nightly, false).enabled()).hasSize(2);
    assertThat(registry.select("cuda", "stage-c-2-gpu-h200", nightly, false).enabled())
        .extracting(Registration::file).containsExactly("tests/e2e/test_ft_short.py", "tests/e2e/test_mooncake.py");
  }

  @Test
  void manualDispatchMatchesAllLabelsOnGpuStagesOnly() {
    RunPolicy dispatch = resolver.resolveCadence("regular", List.of());
    assertThat(registry.select("cuda", "stage-c-4-gpu-h200", dispatch, false).enabled()).isEmpty();
    assertThat(registry.select("cuda", "stage-c-4-gpu-h200", dispatch, true).enabled())
        .extracting(Registration::file).containsExactly("tests/e2e/test_fsdp_short.py", "tests/e2e/test_lora.py",
            "tests/e2e/test_eval.py");
    // CPU stages are unaffected: the labeled CPU test still needs its label
    assertThat(registry.select("cpu", "stage-b-cpu", dispatch, true).enabled()).extracting(Registration::file)
        .containsExactly("tests/fast/test_gate.py");
    // nightly admission does not change
    assertThat(registry.select("cuda", "stage-c-8-gpu-h100", dispatch, true).enabled()).extracting(Registration::file)
        .containsExactly("tests/e2e/test_megatron_short.py");
  }

  @Test
  void unknownSuiteForBackend() {
    RunPolicy p = resolver.resolveCadence("regular", List.of());
    assertThatThrownBy(() -> registry.select("cuda", "stage-c-4-gpu-mi350", p, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Unknown suite stage-c-4-gpu-mi350 for backend cuda");
    assertThatThrownBy(() -> registry.select("tpu", "stage-a-cpu", p, false))
        .hasMessage("Unknown backend tpu; expected one of [cpu, cuda, rocm]");
  }

  @Test
  void aPlanHasTimeoutsTotalsAndContinueOnError() {
    RunPolicy p = resolver.resolveCadence("weekly", List.of());
    SuiteRunPlan plan = registry.plan("cuda", "stage-c-8-gpu-h100", p, false, Optional.empty());
    assertThat(plan.enabled()).containsExactly("tests/e2e/test_megatron_long.py", "tests/e2e/test_megatron_short.py");
    assertThat(plan.timeouts()).containsEntry("tests/e2e/test_megatron_long.py", 6750L)
        .containsEntry("tests/e2e/test_megatron_short.py", 1875L);
    assertThat(plan.estTotalSeconds()).isEqualTo(6900.0);
    assertThat(plan.continueOnError()).isTrue();
    assertThat(plan.maxParallel()).isEqualTo(1);
    assertThat(plan.policyLine()).startsWith("cadence=weekly include=[amd, ckpt,");
  }

  @Test
  void timeoutsHaveABaseOf1800Seconds() {
    RunPolicy p = resolver.resolveCadence("regular", List.of("run-ci-weight-update"));
    SuiteRunPlan plan = registry.plan("cuda", "stage-b-2-gpu-h200", p, false, Optional.empty());
    assertThat(plan.timeouts()).containsExactly(java.util.Map.entry("tests/fast-gpu/test_weight_update.py", 1800L));
    assertThat(plan.continueOnError()).isFalse();
  }

  @Test
  void zeroSelectedTestsIsASuccessWithAnExplicitMessage() {
    RunPolicy p = resolver.resolveCadence("regular", List.of());
    SuiteRunPlan plan = registry.plan("cuda", "stage-c-8-gpu-b200", p, false, Optional.empty());
    assertThat(plan.enabled()).isEmpty();
    assertThat(plan.message()).isEqualTo(
        "No tests matched stage-c-8-gpu-b200 (cuda) under cadence regular; nothing to run (success)");
  }

  @Test
  void aShardedPlanRunsItsShard() {
    RunPolicy p = resolver.resolveCadence("weekly", List.of());
    SuiteRunPlan s0 = registry.plan("cuda", "stage-c-4-gpu-h200", p, false, Optional.of(new SuiteRunPlan.Shard(0, 3)));
    SuiteRunPlan s1 = registry.plan("cuda", "stage-c-4-gpu-h200", p, false, Optional.of(new SuiteRunPlan.Shard(1, 3)));
    SuiteRunPlan s2 = registry.plan("cuda", "stage-c-4-gpu-h200", p, false, Optional.of(new SuiteRunPlan.Shard(2, 3)));
    assertThat(s0.enabled()).containsExactly("tests/e2e/test_fsdp_short.py");
    assertThat(s1.enabled()).containsExactly("tests/e2e/test_lora.py");
    assertThat(s2.enabled()).containsExactly("tests/e2e/test_eval.py");
    assertThatThrownBy(() -> registry.plan("cuda", "stage-c-4-gpu-h200", p, false,
        Optional.of(new SuiteRunPlan.Shard(3, 3)))).isInstanceOf(InvalidInputException.class);
  }

  @Test
  void maxParallelIsTheShardCountAndOneInWeekly() {
    assertThat(registry.maxParallel("cuda", "stage-c-4-gpu-h200", "nightly")).isEqualTo(3);
    assertThat(registry.maxParallel("cuda", "stage-c-4-gpu-h200", "weekly")).isEqualTo(1);
    assertThat(registry.maxParallel("cpu", "stage-a-cpu", "weekly")).isEqualTo(4);
    assertThat(registry.maxParallel("rocm", "stage-c-4-gpu-mi350", "weekly")).isEqualTo(1);
  }

  @Test
  void aRegistrationCannotBeBuiltWithABrokenEstimate() {
    assertThatThrownBy(() -> Registration.builder().file("tests/e2e/test_z.py").backend("cuda")
        .suite("stage-c-4-gpu-h200").estTimeSeconds(Double.NaN).addLabels("megatron").build())
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("Registration.estTimeSeconds: est_time must be a finite number of seconds, at least 0; got NaN");
  }

  @Test
  void registrationsBuiltInCodeAreCheckedToo() {
    Registration wrongSuite = Registration.builder().file("tests/e2e/test_x.py").backend("cuda")
        .suite("stage-c-4-gpu-mi350").estTimeSeconds(10).addLabels("amd").build();
    Registration noLabels = Registration.builder().file("tests/e2e/test_y.py").backend("rocm")
        .suite("stage-c-4-gpu-mi350").estTimeSeconds(10).build();
    Registration badLabel = Registration.builder().file("tests/e2e/test_z.py").backend("cuda")
        .suite("stage-c-4-gpu-h200").estTimeSeconds(12).addLabels("megatorn").build();
    assertThatThrownBy(() -> SuiteRegistry.of(resolver, List.of(wrongSuite, noLabels, badLabel)))
        .isInstanceOf(RegistrationException.class)
        .satisfies(e -> assertThat(((RegistrationException) e).problems()).extracting(Object::toString).containsExactly(
            "[0].suite: test file 'tests/e2e/test_x.py': suite 'stage-c-4-gpu-mi350' is not declared for backend"
                + " 'cuda' (it belongs to backend 'rocm'); its suites are [stage-b-2-gpu-h200, stage-c-8-gpu-h100,"
                + " stage-c-8-gpu-h200, stage-c-4-gpu-h200, stage-c-2-gpu-h200, stage-c-8-gpu-b200]",
            "[1].labels: test file 'tests/e2e/test_y.py': a rocm (GPU) registration needs at least one label",
            "[2].labels[0]: test file 'tests/e2e/test_z.py': unknown label 'megatorn'; expected one of [amd, ckpt,"
                + " eval, fsdp, ft-long, ft-short, fully-async, long, lora, megatron, miles-plugin, model-scripts,"
                + " mooncake, precision, qwen35, replay, sglang, short, weight-update]"));
  }
}

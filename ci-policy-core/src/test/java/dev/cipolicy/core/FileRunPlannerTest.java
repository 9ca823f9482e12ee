package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.suite.FileRunDecision;
import dev.cipolicy.api.suite.FileRunPlan;
import dev.cipolicy.api.suite.Permission;
import dev.cipolicy.api.suite.Registration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Single-file reruns: grammar, ordered checks and their messages, the plan. */
class FileRunPlannerTest {
  private final FileRunPlanner planner = FileRunPlanner.of(ReferencePolicy.registry());

  @ParameterizedTest
  @ValueSource(strings = {"/rerun-test tests/e2e/test_lora.py", "  /rerun-test   tests/e2e/test_lora.py \n",
      "/rerun-test tests/fast-gpu/sub_dir/x.y/test_a-b.py", "/rerun-test tests/ci/test_x.py"})
  void acceptsWellFormedComments(String comment) {
    assertThat(planner.parseComment(comment)).isPresent();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/rerun-test", "/rerun-test tests/e2e/../test_x.py", "/rerun-test /etc/test_x.py",
      "/rerun-test tests/e2e/test_x.py extra", "/rerun-test tests/e2e/test_x.py; rm -rf /",
      "/rerun-test tests/other/test_x.py", "/rerun-test tests/e2e/x.py", "/rerun-test tests/e2e/test_.x.py",
      "/rerun-test\ttests/e2e/test_x.py", "please /rerun-test tests/e2e/test_x.py", "/rerun-test tests/e2e/.hidden/test_x.py",
      "/rerun-test tests/e2e/test_$(id).py", "/rerun-testtests/e2e/test_x.py"})
  void rejectsEverythingElse(String comment) {
    assertThat(planner.parseComment(comment)).isEmpty();
  }

  @Test
  void plansACudaRerun() {
    FileRunDecision d = planner.decideComment("/rerun-test tests/e2e/test_lora.py", Permission.WRITE, 42,
        Optional.of("pr-42-abc"));
    assertThat(d.accepted()).isTrue();
    FileRunPlan plan = d.plan().orElseThrow();
    assertThat(plan).isEqualTo(new FileRunPlan("tests/e2e/test_lora.py", "cuda", "stage-c-4-gpu-h200",
        List.of("h200", "4gpu"), "radixark/miles:pr-42-abc", 1800, "rerun-test-42-tests/e2e/test_lora.py"));
  }

  @Test
  void plansACpuRerunWithoutRunnerLabels() {
    FileRunPlan plan = planner.planFile("tests/fast/test_gate.py", Optional.empty(), Optional.empty()).plan().orElseThrow();
    assertThat(plan.hw()).isEqualTo("cpu");
    assertThat(plan.runsOn()).isEmpty();
    assertThat(plan.containerImage()).isEqualTo("radixark/miles:latest");
  }

  @Test
  void labelsAndTheNightlyGateDoNotApply() {
    FileRunPlan plan = planner.planFile("tests/e2e/test_megatron_long.py", Optional.of("t"), Optional.empty())
        .plan().orElseThrow();
    assertThat(plan.suite()).isEqualTo("stage-c-8-gpu-h100");
    assertThat(plan.timeoutSeconds()).isEqualTo(6750);
  }

  @Test
  void onlyWriteAccessMayTriggerAndThatIsCheckedFirst() {
    FileRunDecision d = planner.decideComment("garbage", Permission.READ, 1, Optional.empty());
    assertThat(d.check()).isEqualTo("permission");
    assertThat(d.message()).isEqualTo("/rerun-test requires write access to the repository; the commenter has 'read'");
    assertThat(planner.decideComment("/rerun-test tests/e2e/test_lora.py", Permission.ADMIN, 1, Optional.empty())
        .accepted()).isTrue();
    assertThat(planner.decideComment("/rerun-test tests/e2e/test_lora.py", Permission.TRIAGE, 1, Optional.empty())
        .accepted()).isFalse();
  }

  @Test
  void theChecksRunInOrderWithTheirMessages() {
    assertThat(planner.planFile("tests/e2e/test_nope.py", Optional.of("bad tag!"), Optional.empty()).message())
        .isEqualTo("invalid CI image tag: 'bad tag!'");
    assertThat(planner.planFile("tests/e2e/test_nope.py", Optional.of("t"), Optional.empty()).message())
        .isEqualTo("tests/e2e/test_nope.py has no CI registration; /rerun-test runs only registered test files");
    assertThat(planner.planFile("tests/e2e/test_amd_kernels.py", Optional.of("t"), Optional.empty()).message())
        .isEqualTo("tests/e2e/test_amd_kernels.py is registered only for ROCm (stage-c-4-gpu-mi350); /rerun-test"
            + " supports CPU and CUDA");
    assertThat(planner.planFile("tests/e2e/test_replay.py", Optional.of("t"), Optional.empty()).message())
        .isEqualTo("tests/e2e/test_replay.py is disabled: flaky replay buffer, tracked in #2511");
    // a ROCm registration beside a CUDA one does not count
    assertThat(planner.planFile("tests/e2e/test_megatron_short.py", Optional.of("t"), Optional.empty()).accepted())
        .isTrue();
  }

  @Test
  void multipleCpuCudaRegistrationsAreAmbiguous() {
    SuiteRegistry twice = SuiteRegistry.of(ReferencePolicy.resolver(), List.of(
        Registration.builder().file("tests/e2e/test_x.py").backend("cuda").suite("stage-c-4-gpu-h200")
            .estTimeSeconds(1).addLabels("lora").build(),
        Registration.builder().file("tests/e2e/test_x.py").backend("cuda").suite("stage-c-2-gpu-h200")
            .estTimeSeconds(1).addLabels("lora").build()));
    assertThat(FileRunPlanner.of(twice).planFile("tests/e2e/test_x.py", Optional.of("t"), Optional.empty()).message())
        .isEqualTo("tests/e2e/test_x.py has multiple CPU/CUDA registrations (cuda:stage-c-4-gpu-h200,"
            + " cuda:stage-c-2-gpu-h200); expected exactly one");
  }

  @Test
  void aMalformedCommentFromACollaboratorGetsTheUsage() {
    FileRunDecision d = planner.decideComment("/rerun-test tests/e2e/../x.py", Permission.WRITE, 1, Optional.empty());
    assertThat(d.check()).isEqualTo("comment");
    assertThat(d.message()).startsWith("usage: /rerun-test tests/<e2e|fast|fast-gpu|ci>/.../test_<name>.py");
  }
}

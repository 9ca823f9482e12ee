package dev.cipolicy.fleet.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostCommandTest {

  private static final Path WS = Path.of("/srv/ci/work/stage-b-0of2");

  private static CiJob.Builder job(String... deviceEnv) {
    return CiJob.builder().repository("acme/trainer").commit("0123456789abcdef0123456789abcdef01234567")
        .command(List.of("python", "run.py", "--suite", "stage-b")).env(Map.of("CI_CADENCE", "nightly"))
        .deviceEnv(List.of(deviceEnv));
  }

  @Test
  void onTheHostTheDeviceVariablesCarryTheGrantedIndices() {
    HostCommand c = HostCommand.of(job("CUDA_VISIBLE_DEVICES").image("ci:1").build(), List.of(2, 3), WS, "", "j1");
    assertThat(c.argv()).containsExactly("python", "run.py", "--suite", "stage-b");
    assertThat(c.env()).containsExactlyInAnyOrderEntriesOf(Map.of("CI_CADENCE", "nightly",
        "CUDA_VISIBLE_DEVICES", "2,3", "CI_POLICY_DEVICES", "2,3"));
    assertThat(c.cleanup()).isEmpty();
    HostCommand amd = HostCommand.of(job("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES").build(), List.of(5), WS, "docker",
        "j2");
    assertThat(amd.env()).containsEntry("HIP_VISIBLE_DEVICES", "5").containsEntry("ROCR_VISIBLE_DEVICES", "5");
    assertThat(amd.argv()).as("no image: on the host even with a runtime").startsWith("python");
  }

  @Test
  void nvidiaContainersGetExactlyTheGrantedGpusNumberedFromZero() {
    HostCommand c = HostCommand.of(job("CUDA_VISIBLE_DEVICES").image("ghcr.io/acme/ci:1").build(), List.of(4, 5, 6, 7),
        WS, "docker", "job-17");
    assertThat(c.argv()).containsExactly("docker", "run", "--rm", "--init", "--name", "job-17",
        "--volume", "/srv/ci/work/stage-b-0of2:/workspace", "--workdir", "/workspace",
        "--gpus", "\"device=4,5,6,7\"",
        "--env", "CI_CADENCE", "--env", "CI_POLICY_DEVICES", "--env", "CUDA_VISIBLE_DEVICES=0,1,2,3",
        "ghcr.io/acme/ci:1", "python", "run.py", "--suite", "stage-b");
    assertThat(c.env()).containsEntry("CI_POLICY_DEVICES", "4,5,6,7").doesNotContainKey("CUDA_VISIBLE_DEVICES");
    assertThat(c.cleanup()).containsExactly("docker", "rm", "--force", "job-17");
  }

  @Test
  void amdContainersSeeTheDriverAndKeepHostIndices() {
    HostCommand c = HostCommand.of(job("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES").image("rocm/ci:1").build(),
        List.of(1, 3), WS, "podman", "job-18");
    assertThat(c.argv()).containsSequence("--device", "/dev/kfd", "--device", "/dev/dri", "--group-add", "video")
        .doesNotContain("--gpus");
    assertThat(c.argv()).contains("--env", "HIP_VISIBLE_DEVICES=1,3", "ROCR_VISIBLE_DEVICES=1,3");
    assertThat(c.argv().get(0)).isEqualTo("podman");
  }

  @Test
  void variableValuesNeverAppearOnTheRuntimesCommandLine() {
    HostCommand c = HostCommand.of(job("CUDA_VISIBLE_DEVICES").env(Map.of("HF_TOKEN", "secret-value")).image("ci:1")
        .build(), List.of(0), WS, "docker", "j");
    assertThat(String.join(" ", c.argv())).doesNotContain("secret-value").contains("--env HF_TOKEN");
    assertThat(c.env()).containsEntry("HF_TOKEN", "secret-value");
  }

  @Test
  void aContainerNameThatCouldBeAnOptionIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HostCommand.of(job("CUDA_VISIBLE_DEVICES").image("ci:1")
        .build(), List.of(0), WS, "docker", "--privileged"))
        .isInstanceOf(InvalidCiJobException.class)
        .hasMessage("container name '--privileged' is not [A-Za-z0-9][A-Za-z0-9_.-]* of at most 128 characters");
  }
}

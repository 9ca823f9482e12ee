package dev.cipolicy.launcher;

import static dev.cipolicy.testkit.doubles.CommandScript.argvStartsWith;
import static dev.cipolicy.testkit.doubles.CommandScript.program;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.LaunchPorts;
import dev.cipolicy.testkit.doubles.CommandScript;
import dev.cipolicy.testkit.doubles.FrozenEnvironment;
import dev.cipolicy.testkit.doubles.FrozenFileSystemView;
import dev.cipolicy.testkit.doubles.RecordedCommand;
import dev.cipolicy.testkit.doubles.RecordingCommandExecutor;
import dev.cipolicy.testkit.doubles.StableScratchpad;
import dev.cipolicy.testkit.snapshot.LauncherSnapshots;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Behaviour of {@link StageLauncher} beyond its golden files: the decisions it takes on what it finds. */
class StageLauncherTest {
  @TempDir
  Path sandbox;

  private RecordingCommandExecutor executor;

  private StageLauncher launcher(CommandScript script) {
    return launcher(script, FrozenEnvironment.builder().set("CI_CADENCE", "nightly").build());
  }

  private StageLauncher launcher(CommandScript script, FrozenEnvironment environment) {
    executor = new RecordingCommandExecutor(script);
    Path repo = LauncherSnapshots.findRepositoryRoot(Path.of(""));
    return new StageLauncher(new LaunchPorts(executor,
        environment,
        FrozenFileSystemView.of(sandbox, repo), Clock.fixed(LauncherSnapshots.FROZEN_INSTANT, ZoneOffset.UTC),
        new StableScratchpad()));
  }

  @Test
  void anImageAlreadyOnTheNodeIsNotPulled() throws Exception {
    launcher(CommandScript.empty()).pullImage();

    assertThat(executor.commands()).extracting(c -> String.join(" ", c.command().argv()))
        .containsExactly("docker image inspect --format {{.Id}} radixark/miles:latest");
  }

  @Test
  void aNodeWithTooFewGpusStopsTheLaunchBeforeAnyContainerStarts() {
    StageLauncher l = launcher(CommandScript.builder().nodes("a", "b")
        .respond(program("nvidia-smi"), (node, command) -> CommandResult.success(node.equals("a") ? "0\n1\n2\n3\n"
            : "0\n1\n"))
        .build());

    assertThatThrownBy(() -> l.runSuite("stage-c-4-gpu-h200"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("node b has 2 GPU(s); stage-c-4-gpu-h200 needs 4");
    assertThat(executor.commands()).extracting(RecordedCommand::command).extracting(c -> c.program())
        .containsExactly("nvidia-smi");
  }

  @Test
  void aFailedPullIsAnError() {
    StageLauncher l = launcher(CommandScript.builder()
        .respond(argvStartsWith("docker", "image", "inspect"), CommandResult.failure(1, "No such image"))
        .respond(argvStartsWith("docker", "pull"), CommandResult.failure(1, "manifest unknown\n"))
        .build());

    assertThatThrownBy(l::pullImage).isInstanceOf(InvalidInputException.class)
        .hasMessage("cannot pull radixark/miles:latest: manifest unknown");
  }

  @Test
  void aSuitesGpusAndImageComeFromThePolicyNotFromItsName() throws Exception {
    StageLauncher l = launcher(CommandScript.builder()
        .respond(program("nvidia-smi"), (node, command) -> CommandResult.success("0\n1\n"))
        .build(), FrozenEnvironment.builder()
        .set("CI_POLICY", "examples/policies/jvm-service.yaml")
        .set("CI_REGISTRATIONS", "examples/registrations/jvm-service.yaml")
        .set("CI_CADENCE", "nightly")
        .set("CI_IMAGE_TAG", "main")
        .build());

    l.runSuite("e2e-gpu");

    assertThat(executor.commands()).extracting(c -> String.join(" ", c.command().argv()))
        .filteredOn(c -> c.startsWith("docker"))
        .hasSize(2)
        .allSatisfy(c -> assertThat(c).contains("ghcr.io/acme/orders-service:main"));
    String run = executor.commands().stream().map(c -> String.join(" ", c.command().argv()))
        .filter(c -> c.startsWith("docker run")).findFirst().orElseThrow();
    assertThat(run).contains("--gpus \"device=0,1\"", "--suite e2e-gpu", "--num-gpus 2", "--hw gpu");
  }

  @Test
  void anUnknownSuiteIsAnError() {
    assertThatThrownBy(() -> launcher(CommandScript.empty()).runSuite("stage-z-cpu"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Unknown suite stage-z-cpu in policy miles");
  }
}

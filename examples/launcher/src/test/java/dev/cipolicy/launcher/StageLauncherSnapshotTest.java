package dev.cipolicy.launcher;

import static dev.cipolicy.testkit.doubles.CommandScript.argvStartsWith;
import static dev.cipolicy.testkit.doubles.CommandScript.program;

import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.core.load.PolicyLoader;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.testkit.doubles.CommandScript;
import dev.cipolicy.testkit.doubles.FrozenEnvironment;
import dev.cipolicy.testkit.snapshot.LauncherSnapshotExtension;
import dev.cipolicy.testkit.snapshot.LauncherSnapshotTest;
import dev.cipolicy.testkit.snapshot.LauncherSnapshots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The snapshot test of {@link StageLauncher}: one golden file per suite of the reference policy, under a
 * nightly run, on a runner with two 8-GPU nodes that lack the CI image.
 */
class StageLauncherSnapshotTest {
  static final Path POLICY = Path.of("../policies/miles.yaml");

  /** GPU indexes as {@code nvidia-smi --query-gpu=index --format=csv,noheader} prints them. */
  static final String EIGHT_GPUS = "0\n1\n2\n3\n4\n5\n6\n7\n";

  /** The same for {@code rocm-smi --showid --csv}. */
  static final String EIGHT_ROCM_GPUS = "device,Device ID\n" + "0,0x75a0\n1,0x75a0\n2,0x75a0\n3,0x75a0\n"
      + "4,0x75a0\n5,0x75a0\n6,0x75a0\n7,0x75a0\n";

  @RegisterExtension
  static final LauncherSnapshotExtension SNAPSHOTS = LauncherSnapshotExtension.of(
      LauncherSnapshots.of(StageLauncher.class, StageLauncher::new)
          .goldenDirectory(Path.of("src/test/resources/golden/stage-launcher"))
          .environment(FrozenEnvironment.builder()
              .set("CI_CADENCE", "nightly")
              .set("CI_IMAGE_TAG", "nightly-260101")
              .set("CI_RESULTS_DIR", "<SANDBOX>/results")
              .build())
          .script(CommandScript.builder()
              .nodes("gpu-node-0", "gpu-node-1")
              .respond(program("nvidia-smi"), CommandResult.success(EIGHT_GPUS))
              .respond(program("rocm-smi"), CommandResult.success(EIGHT_ROCM_GPUS))
              .respond(argvStartsWith("docker", "image", "inspect"), CommandResult.failure(1, "Error: No such image"))
              .build())
          .variants("runSuite", suitesOfTheReferencePolicy())
          .allowNoCommands("runSuite[nightly-stage-c-4-gpu-mi350]",
              "no test is registered for it yet; an empty suite is a success")
          .build());

  @LauncherSnapshotTest
  void matchesItsGoldenFile() {}

  /** Every suite of every backend of the reference policy, in policy order. */
  static List<String> suitesOfTheReferencePolicy() {
    try {
      return PolicyLoader.load(POLICY.toString(), Files.readString(POLICY)).policy().backends().stream()
          .map(Backend::suites)
          .flatMap(List::stream)
          .map(Suite::name)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

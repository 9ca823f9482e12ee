package dev.cipolicy.testkit.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.cipolicy.testkit.doubles.FrozenEnvironment;
import dev.cipolicy.testkit.golden.UpdateMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** Runs a host's short test class through the JUnit Platform and looks at what it reports. */
class LauncherSnapshotExtensionTest {
  @TempDir
  Path tmp;

  @AfterEach
  void disableFixture() {
    HostSnapshotFixture.snapshots = null;
  }

  private record Outcome(String name, TestExecutionResult.Status status, String message) {}

  private List<Outcome> run(Supplier<UpdateMode> mode) {
    LauncherSnapshots<Launchers.Train> s = LauncherSnapshots.of(Launchers.Train.class, Launchers.Train::new)
        .goldenDirectory(tmp.resolve("golden"))
        .repositoryRoot(tmp)
        .environment(FrozenEnvironment.builder().set("MODEL_CACHE", "<SANDBOX>/cache").build())
        .variants("evaluate", List.of("qwen3-4b"))
        .allowNoCommands("dryRun", "prints only")
        .build();
    HostSnapshotFixture.snapshots = LauncherSnapshotExtension.of(s, mode);
    List<Outcome> outcomes = new ArrayList<>();
    LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
        .selectors(selectClass(HostSnapshotFixture.class)).build(), new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest() || id.getDisplayName().equals("matchesItsGoldenFile()")) {
              outcomes.add(new Outcome(id.getDisplayName(), result.getStatus(),
                  result.getThrowable().map(Throwable::getMessage).orElse("")));
            }
          }
        });
    return outcomes;
  }

  @Test
  void oneTestPerCasePlusTheOrphanCheck() {
    List<Outcome> update = run(() -> UpdateMode.UPDATE);
    assertThat(update).extracting(Outcome::name).containsExactly("dryRun", "evaluate[qwen3-4b]", "train",
        LauncherSnapshotExtension.ORPHANS, "matchesItsGoldenFile()");
    assertThat(update).extracting(Outcome::status).containsOnly(TestExecutionResult.Status.SUCCESSFUL);
    assertThat(tmp.resolve("golden/train.txt")).exists();

    List<Outcome> compare = run(() -> UpdateMode.COMPARE);
    assertThat(compare).extracting(Outcome::status).containsOnly(TestExecutionResult.Status.SUCCESSFUL);
  }

  @Test
  void aMissingGoldenAndAnOrphanFailTheirTests() throws Exception {
    run(() -> UpdateMode.UPDATE);
    Files.delete(tmp.resolve("golden/train.txt"));
    Files.writeString(tmp.resolve("golden/finetune.txt"), "### 1\nold\n");

    List<Outcome> compare = run(() -> UpdateMode.COMPARE);

    assertThat(compare).filteredOn(o -> o.status() == TestExecutionResult.Status.FAILED)
        .extracting(Outcome::name).containsExactly("train", LauncherSnapshotExtension.ORPHANS);
    assertThat(compare).filteredOn(o -> o.name().equals("train")).first().extracting(Outcome::message)
        .asString().contains("does not exist; create it with\n  ./mvnw -o -pl ci-testkit -am verify"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dtest=HostSnapshotFixture -Dci.testkit.update=true");
    assertThat(compare).filteredOn(o -> o.name().equals(LauncherSnapshotExtension.ORPHANS)).first()
        .extracting(Outcome::message).asString().contains("[finetune.txt]");
  }

  @Test
  void anUpdateUnderCiFailsTheWholeTemplateAndWritesNothing() {
    List<Outcome> refused = run(() -> UpdateMode.decide(Map.of("CI", "true"), Map.of("ci.testkit.update", "true")));

    assertThat(refused).singleElement().satisfies(o -> {
      assertThat(o.status()).isEqualTo(TestExecutionResult.Status.FAILED);
      assertThat(o.message()).startsWith("refusing to update golden files");
    });
    assertThat(tmp.resolve("golden")).doesNotExist();
  }
}

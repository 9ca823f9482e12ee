package dev.cipolicy.testkit.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.testkit.doubles.CommandScript;
import dev.cipolicy.testkit.doubles.FrozenEnvironment;
import dev.cipolicy.testkit.doubles.FrozenKeyException;
import dev.cipolicy.testkit.golden.SnapshotConfigurationException;
import dev.cipolicy.testkit.golden.UpdateMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

class LauncherSnapshotsTest {
  private static final String TRAIN_GOLDEN = """
      ### 1
      hf download Qwen/Qwen3-4B --local-dir <SANDBOX>/cache/qwen3-4b

      ### 2 (on all nodes: node-0, node-1)
      nvidia-smi -L

      ### 3
      env: MASTER_ADDR=127.0.0.1
      python
        train.py
        --config
        /frozen/pseudo_file_1.yaml
        --run-id
        260101-000000-000
        --started
        2026-01-01T00:00:00Z

      ### pseudo file 1: /frozen/pseudo_file_1.yaml
      model: <SANDBOX>/cache/qwen3-4b
      nodes: 2
      """;

  @TempDir
  Path tmp;

  Path repo;
  Path goldens;

  @BeforeEach
  void layOut() throws Exception {
    repo = Files.createDirectories(tmp.resolve("repo"));
    goldens = repo.resolve("src/test/resources/golden/train");
  }

  private LauncherSnapshots.Builder<Launchers.Train> train() {
    return LauncherSnapshots.of(Launchers.Train.class, Launchers.Train::new)
        .goldenDirectory(goldens)
        .repositoryRoot(repo)
        .environment(FrozenEnvironment.builder()
            .set("MASTER_ADDR", "127.0.0.1")
            .set("MODEL_CACHE", "<SANDBOX>/cache")
            .build())
        .script(CommandScript.builder().nodes("node-0", "node-1")
            .respond(CommandScript.program("nvidia-smi"), CommandResult.success("GPU 0\nGPU 1\n"))
            .build())
        .variants("evaluate", List.of("qwen3-4b", "glm-5"))
        .allowNoCommands("dryRun", "a dry run only prints the plan")
        .updateCommand("UPDATE-COMMAND");
  }

  private static SnapshotCase find(LauncherSnapshots<?> s, String id) {
    return s.cases().stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void discoversEveryPublicInstanceMethodAndOneCasePerVariant() {
    LauncherSnapshots<Launchers.Train> s = train().build();

    assertThat(s.cases()).extracting(SnapshotCase::id)
        .containsExactly("dryRun", "evaluate[qwen3-4b]", "evaluate[glm-5]", "train");
    assertThat(s.cases()).extracting(SnapshotCase::goldenPath)
        .containsExactly("dryRun.txt", "evaluate/qwen3-4b.txt", "evaluate/glm-5.txt", "train.txt");
  }

  @Test
  void updateWritesScrubbedGoldensThatThenMatch() throws Exception {
    LauncherSnapshots<Launchers.Train> s = train().build();

    for (SnapshotCase c : s.cases()) {
      assertThat(s.check(c, UpdateMode.UPDATE, null).status()).isEqualTo(SnapshotResult.Status.CREATED);
    }
    assertThat(Files.readString(goldens.resolve("train.txt"))).isEqualTo(TRAIN_GOLDEN);
    assertThat(Files.readString(goldens.resolve("dryRun.txt"))).isEqualTo("(no commands)\n");
    assertThat(Files.readString(goldens.resolve("evaluate/glm-5.txt"))).isEqualTo("### 1\npython eval.py --model glm-5\n");
    for (SnapshotCase c : s.cases()) {
      assertThat(s.check(c, UpdateMode.COMPARE, null).status()).isEqualTo(SnapshotResult.Status.MATCHED);
      assertThat(s.check(c, UpdateMode.UPDATE, null).status()).isEqualTo(SnapshotResult.Status.UNCHANGED);
    }
  }

  @Test
  void theSandboxIsFreshAndPreparedForEachRun() throws Exception {
    LauncherSnapshots<Launchers.Train> s = train()
        .prepareSandbox((c, sandbox) -> Files.createDirectories(sandbox.resolve("cache/qwen3-4b")))
        .build();

    LauncherSnapshots.Run run = s.runOnce(find(s, "train"));

    assertThat(run.text()).doesNotContain("hf download").startsWith("### 1 (on all nodes: node-0, node-1)");
  }

  @Test
  void aMissingGoldenFailsWithTheExactCommandThatCreatesIt() {
    LauncherSnapshots<Launchers.Train> s = train().build();

    assertThatThrownBy(() -> s.check(find(s, "train"), UpdateMode.COMPARE, "TrainSnapshotTest"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageStartingWith("golden file " + goldens.resolve("train.txt") + " of train does not exist; create it"
            + " with\n  UPDATE-COMMAND\nthen review and commit it. It would hold:\n" + TRAIN_GOLDEN);
  }

  @Test
  void theDefaultUpdateCommandTargetsThisModuleWithTheExactSwitch() {
    LauncherSnapshots<Launchers.Train> s = LauncherSnapshots.of(Launchers.Train.class, Launchers.Train::new)
        .goldenDirectory(goldens).repositoryRoot(repo).variants("evaluate", List.of("m"))
        .allowNoCommands("dryRun", "dry").build();

    // Maven runs the tests in the module directory, below the directory that holds mvnw.
    assertThat(s.updateCommand("TrainSnapshotTest")).isEqualTo("./mvnw -o -pl ci-testkit -am verify"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dtest=TrainSnapshotTest -Dci.testkit.update=true");
  }

  @Test
  void aChangedRecordingFailsWithAUnifiedDiff() throws Exception {
    LauncherSnapshots<Launchers.Train> s = train().build();
    s.check(find(s, "train"), UpdateMode.UPDATE, null);
    Files.writeString(goldens.resolve("train.txt"), TRAIN_GOLDEN.replace("nodes: 2", "nodes: 1"));

    assertThatThrownBy(() -> s.check(find(s, "train"), UpdateMode.COMPARE, null))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("entrypoint train of Train no longer matches its golden file")
        .hasMessageContaining("--- golden train.txt\n+++ recorded train\n@@ -17,4 +17,4 @@\n \n"
            + " ### pseudo file 1: /frozen/pseudo_file_1.yaml\n model: <SANDBOX>/cache/qwen3-4b\n-nodes: 1\n+nodes: 2\n")
        .hasMessageContaining("UPDATE-COMMAND")
        .satisfies(e -> {
          AssertionFailedError f = (AssertionFailedError) e;
          assertThat(f.getExpected().getValue()).isEqualTo(TRAIN_GOLDEN.replace("nodes: 2", "nodes: 1"));
          assertThat(f.getActual().getValue()).isEqualTo(TRAIN_GOLDEN);
        });
  }

  @Test
  void orphanGoldensFailTheComparisonAndAreDeletedByAnUpdate() throws Exception {
    LauncherSnapshots<Launchers.Train> s = train().build();
    for (SnapshotCase c : s.cases()) {
      s.check(c, UpdateMode.UPDATE, null);
    }
    assertThat(s.checkOrphans(UpdateMode.COMPARE, null)).isEmpty();
    Files.writeString(goldens.resolve("finetune.txt"), "### 1\nold\n");
    Files.createDirectories(goldens.resolve("sweep"));
    Files.writeString(goldens.resolve("sweep/lr-0.1.txt"), "### 1\nold\n");
    Files.writeString(goldens.resolve("evaluate/llama.txt"), "### 1\nold\n");

    assertThat(s.orphans()).containsExactly("evaluate/llama.txt", "finetune.txt", "sweep/lr-0.1.txt");
    assertThatThrownBy(() -> s.checkOrphans(UpdateMode.COMPARE, null))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("holds 3 file(s) that no entrypoint of Train records: [evaluate/llama.txt,"
            + " finetune.txt, sweep/lr-0.1.txt]");

    assertThat(s.checkOrphans(UpdateMode.UPDATE, null)).hasSize(3);
    assertThat(s.orphans()).isEmpty();
    assertThat(goldens.resolve("sweep")).doesNotExist();
    assertThat(goldens.resolve("evaluate/glm-5.txt")).exists();
  }

  @Test
  void anEntrypointThatIssuesNoCommandFailsWithoutANamedAllowance() {
    LauncherSnapshots<Launchers.Train> s = LauncherSnapshots.of(Launchers.Train.class, Launchers.Train::new)
        .goldenDirectory(goldens).repositoryRoot(repo).variants("evaluate", List.of("m")).build();

    assertThatThrownBy(() -> s.check(find(s, "dryRun"), UpdateMode.UPDATE, null))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessage("entrypoint dryRun of Train issued no command: an entrypoint that silently does nothing is a"
            + " broken launcher, not a passing test. If it must issue none, say so by name:"
            + " .allowNoCommands(\"dryRun\", \"<why>\")");
    assertThat(goldens.resolve("dryRun.txt")).as("nothing written for a broken entrypoint").doesNotExist();
  }

  @Test
  void anAllowedEntrypointMustThenIssueNone() {
    LauncherSnapshots<Launchers.Train> s = train().allowNoCommands("evaluate[glm-5]", "not yet supported").build();

    assertThat(s.check(find(s, "dryRun"), UpdateMode.UPDATE, null).recording().commands()).isEmpty();
    assertThatThrownBy(() -> s.check(find(s, "evaluate[glm-5]"), UpdateMode.UPDATE, null))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessage("entrypoint evaluate[glm-5] of Train is allowed to issue no command (not yet supported) but"
            + " issued 1, the first being:\npython eval.py --model glm-5\nremove the allowance if the entrypoint"
            + " now does work");
  }

  @Test
  void eachEntrypointRunsTwiceAndDifferentRunsFail() {
    LauncherSnapshots<Launchers.Flaky> s = LauncherSnapshots.of(Launchers.Flaky.class, Launchers.Flaky::new)
        .goldenDirectory(goldens).repositoryRoot(repo).build();

    assertThatThrownBy(() -> s.check(s.cases().get(0), UpdateMode.UPDATE, null))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageStartingWith("entrypoint launch of Flaky is not deterministic")
        .hasMessageMatching("(?s).*\n-echo 'run \\d+'\n\\+echo 'run \\d+'\n.*");
  }

  @Test
  void anEntrypointThatThrowsFailsWithWhatItRecordedBefore() {
    LauncherSnapshots<Launchers.Throws> s = LauncherSnapshots.of(Launchers.Throws.class, Launchers.Throws::new)
        .goldenDirectory(goldens).repositoryRoot(repo).build();

    assertThatThrownBy(() -> s.runOnce(s.cases().get(0)))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessage("entrypoint launch of " + Launchers.Throws.class.getName() + " threw java.lang.IllegalStateException:"
            + " no GPU found\nrecorded before it threw:\n### 1\necho before\n")
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  void settingsThatCannotWorkAreRejectedAtBuildTime() {
    assertThatThrownBy(() -> LauncherSnapshots.of(Launchers.TakesAnInt.class, Launchers.TakesAnInt::new)
        .goldenDirectory(goldens).repositoryRoot(repo).build())
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessageContaining("public method launch(int) takes parameters; an entrypoint takes none or one String");
    assertThatThrownBy(() -> LauncherSnapshots.of(Launchers.Train.class, Launchers.Train::new)
        .goldenDirectory(goldens).repositoryRoot(repo).build())
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessageContaining("entrypoint evaluate(String) of " + Launchers.Train.class.getName()
            + " takes a variant but none is declared");
    assertThatThrownBy(() -> train().allowNoCommands("dry-run", "typo").build())
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessageStartingWith("allowNoCommands names 'dry-run', which is neither an entrypoint nor a case");
    assertThatThrownBy(() -> train().variants("train", List.of("x")).build())
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessageContaining("which takes no String parameter");
    assertThatThrownBy(() -> train().variants("evaluate", List.of("../escape")))
        .isInstanceOf(SnapshotConfigurationException.class)
        .hasMessageStartingWith("variant '../escape' of entrypoint evaluate cannot name a golden file");
    assertThatThrownBy(() -> train().environmentOverride("train", "MASTER_ADDR", "10.0.0.2").build())
        .isInstanceOf(FrozenKeyException.class)
        .hasMessageStartingWith("environment variable MASTER_ADDR is frozen to '127.0.0.1'");
  }

  @Test
  void nonFrozenOverridesApplyToTheirCaseOnly() {
    LauncherSnapshots<Launchers.Echoes> s = echoes()
        .environmentOverride("evaluate[b]", "EXTRA", "1")
        .build();

    // the overridden case runs first, so a leak into the cases after it would show
    assertThat(s.runOnce(find(s, "evaluate[b]")).text()).isEqualTo("### 1\necho evaluate b EXTRA=1\n");
    assertThat(s.runOnce(find(s, "evaluate[a]")).text()).isEqualTo("### 1\necho evaluate a EXTRA=unset\n");
    assertThat(s.runOnce(find(s, "serve")).text()).isEqualTo("### 1\necho serve EXTRA=unset\n");
    assertThat(s.runOnce(find(s, "evaluate[b]")).text()).isEqualTo("### 1\necho evaluate b EXTRA=1\n");
  }

  @Test
  void anEntrypointOverrideAppliesToEveryVariantOfThatEntrypointOnly() {
    LauncherSnapshots<Launchers.Echoes> s = echoes().environmentOverride("evaluate", "EXTRA", "2").build();

    assertThat(s.runOnce(find(s, "evaluate[a]")).text()).isEqualTo("### 1\necho evaluate a EXTRA=2\n");
    assertThat(s.runOnce(find(s, "evaluate[b]")).text()).isEqualTo("### 1\necho evaluate b EXTRA=2\n");
    assertThat(s.runOnce(find(s, "serve")).text()).isEqualTo("### 1\necho serve EXTRA=unset\n");
  }

  private LauncherSnapshots.Builder<Launchers.Echoes> echoes() {
    return LauncherSnapshots.of(Launchers.Echoes.class, Launchers.Echoes::new)
        .goldenDirectory(goldens)
        .repositoryRoot(repo)
        .variants("evaluate", List.of("a", "b"));
  }

  @Test
  void capturedSandboxFilesFollowTheRecording() {
    LauncherSnapshots<Launchers.Reports> s = LauncherSnapshots.of(Launchers.Reports.class, Launchers.Reports::new)
        .goldenDirectory(goldens).repositoryRoot(repo)
        .environment(FrozenEnvironment.builder().set("REPORT", "<SANDBOX>/out/report.txt").build())
        .script(CommandScript.builder().respond(CommandScript.program("report"), (node, command) -> {
          try {
            Path out = Path.of(command.arguments().get(1));
            Files.createDirectories(out.getParent());
            Files.writeString(out, "written to " + out + "\n");
            Files.writeString(out.resolveSibling("ignored.log"), "not captured");
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          return CommandResult.success();
        }).build())
        .captureSandboxFiles("out/*.txt")
        .build();

    LauncherSnapshots.Run run = s.runOnce(s.cases().get(0));

    assertThat(run.sandboxFiles()).containsOnlyKeys("out/report.txt");
    assertThat(run.text()).isEqualTo("""
        ### 1
        report --out <SANDBOX>/out/report.txt

        ### sandbox file out/report.txt
        written to <SANDBOX>/out/report.txt
        """);
  }
}

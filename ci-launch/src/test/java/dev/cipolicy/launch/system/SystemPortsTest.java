package dev.cipolicy.launch.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandExecutionException;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.InvalidCommandException;
import dev.cipolicy.launch.LaunchPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemPortsTest {
  @TempDir
  Path tmp;

  @Test
  void theProcessExecutorRunsRealCommandsWithTheirEnvironmentAndDirectory() {
    ProcessCommandExecutor executor = new ProcessCommandExecutor(tmp);

    CommandResult r = executor.run(Command.of("sh", "-c", "echo \"$GREETING $(pwd)\"; echo oops >&2; exit 3")
        .withEnvironment("GREETING", "hello"));

    assertThat(r).isEqualTo(new CommandResult(3, "hello " + tmp.toAbsolutePath() + "\n", "oops\n"));
    assertThat(executor.runOnAllNodes(Command.of("true"))).containsOnlyKeys(ProcessCommandExecutor.LOCAL_NODE);
    assertThatThrownBy(() -> executor.runOnNode("gpu-1", Command.of("true")))
        .isInstanceOf(InvalidCommandException.class).hasMessage("unknown node 'gpu-1'; this executor has only [local]");
    assertThatThrownBy(() -> executor.run(Command.of("/no/such/program")))
        .isInstanceOf(CommandExecutionException.class).hasMessageStartingWith("cannot run /no/such/program");
  }

  @Test
  void theLocalViewAndScratchpadUseTheRealFileSystem() throws Exception {
    Files.writeString(tmp.resolve("b"), "B");
    Files.writeString(tmp.resolve("a"), "A");
    LocalFileSystemView view = new LocalFileSystemView(tmp);
    TempDirectoryScratchpad pad = new TempDirectoryScratchpad(tmp.resolve("scratch"),
        Clock.fixed(Instant.parse("2026-03-04T05:06:07.089Z"), ZoneOffset.UTC));

    Path written = pad.writeTempFile("x: 1\n", "yaml");

    assertThat(view.readString(Path.of("a"))).isEqualTo("A");
    assertThat(view.list(tmp)).extracting(p -> p.getFileName().toString()).containsExactly("a", "b", "scratch");
    assertThat(Files.readString(written)).isEqualTo("x: 1\n");
    assertThat(written.getFileName().toString()).endsWith(".yaml");
    assertThat(pad.newRunId()).isEqualTo("260304-050607-089");
    assertThat(SystemEnvironment.of(Map.of("A", "1")).get("A")).contains("1");
    LaunchPorts ports = SystemPorts.create(tmp);
    assertThat(ports.files().workingDirectory()).isEqualTo(tmp.toAbsolutePath().normalize());
    assertThat(ports.environment().variables()).isEqualTo(new java.util.TreeMap<>(System.getenv()));
  }
}

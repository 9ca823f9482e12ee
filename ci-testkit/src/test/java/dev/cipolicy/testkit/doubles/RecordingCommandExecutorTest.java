package dev.cipolicy.testkit.doubles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.InvalidCommandException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class RecordingCommandExecutorTest {

  @Test
  void recordsCommandsInTheOrderTheyWereIssuedAndTheSameOrderEveryTime() {
    List<List<Command>> recorded = new ArrayList<>();
    for (int attempt = 0; attempt < 3; attempt++) {
      RecordingCommandExecutor executor = new RecordingCommandExecutor();
      for (int i = 0; i < 50; i++) {
        executor.run(Command.of("step", Integer.toString(i)).withEnvironment(Map.of("Z", "1", "A", "2")));
      }
      recorded.add(executor.commands().stream().map(RecordedCommand::command).toList());
      assertThat(executor.commands()).extracting(RecordedCommand::number)
          .containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, 50).boxed().toList());
    }
    assertThat(recorded.get(0)).extracting(c -> c.arguments().get(0))
        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 50).mapToObj(Integer::toString).toList());
    assertThat(recorded.get(1)).isEqualTo(recorded.get(0));
    assertThat(recorded.get(2)).isEqualTo(recorded.get(0));
    assertThat(recorded.get(0).get(0).environment().keySet()).containsExactly("A", "Z");
  }

  @Test
  void concurrentCommandsAreAllRecordedWithDistinctNumbers() throws Exception {
    RecordingCommandExecutor executor = new RecordingCommandExecutor();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int id = t;
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        for (int i = 0; i < 100; i++) {
          executor.run(Command.of("w" + id, Integer.toString(i)));
        }
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(executor.commands()).hasSize(400);
    assertThat(executor.commands()).extracting(RecordedCommand::number).doesNotHaveDuplicates();
  }

  @Test
  void answersFromTheFirstMatchingRuleElseTheDefault() {
    CommandScript script = CommandScript.builder()
        .respond(CommandScript.argvStartsWith("docker", "image", "inspect"), CommandResult.failure(1, "no such image"))
        .respond(CommandScript.program("docker"), CommandResult.success("pulled"))
        .respond(CommandScript.program("hostname"), (node, command) -> CommandResult.success(node + "\n"))
        .build();
    RecordingCommandExecutor executor = new RecordingCommandExecutor(script);

    assertThat(executor.run(Command.of("docker", "image", "inspect", "img")).exitCode()).isEqualTo(1);
    assertThat(executor.run(Command.of("docker", "pull", "img")).stdout()).isEqualTo("pulled");
    assertThat(executor.run(Command.of("hostname")).stdout()).isEqualTo("node-0\n");
    assertThat(executor.run(Command.of("true"))).isEqualTo(CommandResult.success());
  }

  @Test
  void multiNodeVariantsRecordWhereTheyRan() {
    RecordingCommandExecutor executor = new RecordingCommandExecutor(CommandScript.builder()
        .nodes("head", "worker-1")
        .respond(CommandScript.program("hostname"), (node, command) -> CommandResult.success(node))
        .build());

    Map<String, CommandResult> all = executor.runOnAllNodes(Command.of("hostname"));
    CommandResult one = executor.runOnNode("worker-1", Command.of("hostname"));
    executor.run(Command.of("hostname").inDirectory(Path.of("/w")));

    assertThat(all).containsExactly(Map.entry("head", CommandResult.success("head")),
        Map.entry("worker-1", CommandResult.success("worker-1")));
    assertThat(one.stdout()).isEqualTo("worker-1");
    assertThat(executor.commands()).extracting(c -> c.target().kind()).containsExactly(RecordedCommand.Kind.ALL_NODES,
        RecordedCommand.Kind.NODE, RecordedCommand.Kind.LOCAL);
    assertThat(executor.commands().get(2).target().nodes()).containsExactly("head");
    assertThatThrownBy(() -> executor.runOnNode("worker-9", Command.of("hostname")))
        .isInstanceOf(InvalidCommandException.class)
        .hasMessage("unknown node 'worker-9' for hostname; the script's nodes are [head, worker-1]");
  }

  @Test
  void theStableScratchpadHandsOutPlaceholdersAndKeepsTheContents() {
    StableScratchpad pad = new StableScratchpad();

    Path first = pad.writeTempFile("a: 1\n", "yaml");
    Path second = pad.writeTempFile("{}", "json");

    assertThat(pad.newRunId()).isEqualTo(StableScratchpad.DEFAULT_RUN_ID).isEqualTo(pad.newRunId());
    assertThat(first).isEqualTo(Path.of("/frozen/pseudo_file_1.yaml"));
    assertThat(second).isEqualTo(Path.of("/frozen/pseudo_file_2.json"));
    assertThat(pad.pseudoFiles()).containsExactly(new PseudoFile(1, first, "a: 1\n"), new PseudoFile(2, second, "{}"));
    assertThatThrownBy(() -> pad.writeTempFile("x", ".json")).isInstanceOf(InvalidCommandException.class)
        .hasMessageContaining("extension '.json' is not valid");
  }

  @Test
  void commandsRejectBadInputWithClearErrors() {
    assertThatThrownBy(() -> Command.of(List.of())).isInstanceOf(InvalidCommandException.class)
        .hasMessage("a command needs at least a program; got an empty argument list");
    assertThatThrownBy(() -> Command.of("x").withEnvironment("1BAD", "v")).isInstanceOf(InvalidCommandException.class)
        .hasMessageContaining("'1BAD' of command [x] is not valid");
    assertThatThrownBy(() -> Command.of("x").withEnvironment("A", "1").withEnvironment("A", "2"))
        .isInstanceOf(InvalidCommandException.class).hasMessage("environment variable A is set twice on command [x]"
            + " ('1', then '2')");
  }
}

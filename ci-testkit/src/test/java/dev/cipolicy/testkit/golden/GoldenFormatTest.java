package dev.cipolicy.testkit.golden;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.testkit.doubles.CommandScript;
import dev.cipolicy.testkit.doubles.Recording;
import dev.cipolicy.testkit.doubles.RecordingCommandExecutor;
import dev.cipolicy.testkit.doubles.StableScratchpad;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class GoldenFormatTest {

  @Test
  void rendersNumberedSectionsLongCommandsOneArgumentPerLineAndPseudoFiles() {
    RecordingCommandExecutor executor = new RecordingCommandExecutor(CommandScript.builder()
        .nodes("node-0", "node-1").build());
    StableScratchpad pad = new StableScratchpad();
    Path config = pad.writeTempFile("{\"lr\": 0.1}\n", "json");
    executor.runOnAllNodes(Command.of("nvidia-smi", "-L"));
    executor.run(Command.of("python", "train.py", "--config", config.toString(), "--name", "run one",
        "--tags", "[\"a\",\"b\"]", "--note", "it's", "--empty", "")
        .withEnvironment("CUDA_VISIBLE_DEVICES", "0,1").inDirectory(Path.of("/work/repo")));
    executor.runOnNode("node-1", Command.of("echo", "line1\nline2"));

    String text = GoldenFormat.withWidth(40).render(Recording.of(executor, pad));

    assertThat(text).isEqualTo("""
        ### 1 (on all nodes: node-0, node-1)
        nvidia-smi -L

        ### 2
        cwd: /work/repo
        env: CUDA_VISIBLE_DEVICES=0,1
        python
          train.py
          --config
          /frozen/pseudo_file_1.json
          --name
          'run one'
          --tags
          '["a","b"]'
          --note
          'it'\\''s'
          --empty
          ''

        ### 3 (on node node-1)
        echo $'line1\\nline2'

        ### pseudo file 1: /frozen/pseudo_file_1.json
        {"lr": 0.1}
        """);
  }

  @Test
  void recordedOutputsFollowTheirCommand() {
    RecordingCommandExecutor executor = new RecordingCommandExecutor(CommandScript.builder()
        .respond(CommandScript.program("cat"), CommandResult.success("no newline"))
        .respond(CommandScript.program("false"), CommandResult.failure(1, "boom\n"))
        .recordOutputs(true).build());
    executor.run(Command.of("cat", "x"));
    executor.run(Command.of("false"));

    assertThat(GoldenFormat.standard().render(Recording.of(executor, new StableScratchpad()))).isEqualTo("""
        ### 1
        cat x
        --- exit 0
        --- stdout
        no newline
        \\ no newline at end

        ### 2
        false
        --- exit 1
        --- stderr
        boom
        """);
  }

  @Test
  void anEmptyRecordingSaysSo() {
    assertThat(GoldenFormat.standard().render(Recording.of(new RecordingCommandExecutor(), new StableScratchpad())))
        .isEqualTo(GoldenFormat.NO_COMMANDS);
  }
}

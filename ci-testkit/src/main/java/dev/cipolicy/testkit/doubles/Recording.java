package dev.cipolicy.testkit.doubles;

import java.util.List;

/**
 * What one launch left behind: the commands it issued and the files it generated.
 *
 * @param commands in the order they were issued
 * @param pseudoFiles in the order they were written
 * @param outputsRecorded whether each command's result belongs to the recording
 */
public record Recording(List<RecordedCommand> commands, List<PseudoFile> pseudoFiles, boolean outputsRecorded) {
  /**
   * Copies the lists.
   *
   * @param commands the commands
   * @param pseudoFiles the generated files
   * @param outputsRecorded whether results are part of the recording
   */
  public Recording {
    commands = List.copyOf(commands);
    pseudoFiles = List.copyOf(pseudoFiles);
  }

  /**
   * The recording of an executor and a scratchpad.
   *
   * @param executor the recording executor
   * @param scratchpad the stable scratchpad
   * @return their recording
   */
  public static Recording of(RecordingCommandExecutor executor, StableScratchpad scratchpad) {
    return new Recording(executor.commands(), scratchpad.pseudoFiles(), executor.script().recordOutputs());
  }
}

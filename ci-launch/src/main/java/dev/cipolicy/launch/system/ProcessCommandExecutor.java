package dev.cipolicy.launch.system;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandExecutionException;
import dev.cipolicy.launch.CommandExecutor;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.InvalidCommandException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CommandExecutor} that starts processes on this machine, which is its only node. Standard
 * output and error are captured through temporary files (no reader threads, no pipe deadlock).
 */
final class ProcessCommandExecutor implements CommandExecutor {
  /** The name of the only node. */
  static final String LOCAL_NODE = "local";

  private final Path workingDirectory;

  /**
   * An executor whose commands run, unless they name their own, in a directory.
   *
   * @param workingDirectory the default working directory
   */
  ProcessCommandExecutor(Path workingDirectory) {
    this.workingDirectory = workingDirectory.toAbsolutePath().normalize();
  }

  @Override
  public CommandResult run(Command command) {
    ProcessBuilder builder = new ProcessBuilder(command.argv())
        .directory(command.workingDirectory().orElse(workingDirectory).toFile());
    builder.environment().putAll(command.environment());
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("ci-launch-out-", ".txt");
      err = Files.createTempFile("ci-launch-err-", ".txt");
      Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      int code = process.waitFor();
      return new CommandResult(code, Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new CommandExecutionException("cannot run " + command + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommandExecutionException("interrupted while waiting for " + command, e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  @Override
  public Map<String, CommandResult> runOnAllNodes(Command command) {
    Map<String, CommandResult> results = new LinkedHashMap<>();
    results.put(LOCAL_NODE, run(command));
    return results;
  }

  @Override
  public CommandResult runOnNode(String node, Command command) {
    if (!LOCAL_NODE.equals(node)) {
      throw new InvalidCommandException("unknown node '" + node + "'; this executor has only " + nodes());
    }
    return run(command);
  }

  @Override
  public List<String> nodes() {
    return List.of(LOCAL_NODE);
  }

  private static void deleteQuietly(@Nullable Path file) {
    if (file == null) {
      return;
    }
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // A leftover temporary file is harmless; the command's result matters more.
    }
  }
}

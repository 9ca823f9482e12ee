package dev.cipolicy.launch;

import java.util.List;
import java.util.Map;

/**
 * Runs commands for a launcher, on the local node, on one named node or on every node of a cluster (the
 * seed's {@code exec_command} and {@code exec_command_all_ray_node}). Production code uses an adapter that
 * starts processes; tests use {@code RecordingCommandExecutor} (ci-testkit), which records
 * every command and answers from a script. A non-zero exit code is a result, not an exception: the
 * launcher decides.
 */
public interface CommandExecutor {
  /**
   * Runs a command on the local node and waits for it.
   *
   * @param command the command
   * @return its result
   */
  CommandResult run(Command command);

  /**
   * Runs a command on every node and waits for all of them.
   *
   * @param command the command
   * @return node name → result, in the order of {@link #nodes()}
   */
  Map<String, CommandResult> runOnAllNodes(Command command);

  /**
   * Runs a command on one node and waits for it.
   *
   * @param node a name from {@link #nodes()}
   * @param command the command
   * @return its result
   * @throws InvalidCommandException for a node that is not in {@link #nodes()}
   */
  CommandResult runOnNode(String node, Command command);

  /**
   * The nodes this executor reaches.
   *
   * @return node names, the local node first; never empty
   */
  List<String> nodes();
}

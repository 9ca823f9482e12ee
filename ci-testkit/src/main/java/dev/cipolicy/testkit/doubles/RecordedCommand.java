package dev.cipolicy.testkit.doubles;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import java.util.List;
import java.util.Map;

/**
 * One command a launcher issued, where, and what the script answered.
 *
 * @param number 1-based, in the order the launcher issued the commands
 * @param target where it ran
 * @param command the command
 * @param results node → result, in node order
 */
public record RecordedCommand(int number, Target target, Command command, Map<String, CommandResult> results) {
  /**
   * Where a command ran.
   *
   * @param kind local, one node or all nodes
   * @param nodes the nodes it ran on
   */
  public record Target(Kind kind, List<String> nodes) {}

  /** The executor method a command went through. */
  public enum Kind {
    /** {@code run}: the local node. */
    LOCAL,
    /** {@code runOnNode}: one named node. */
    NODE,
    /** {@code runOnAllNodes}: every node. */
    ALL_NODES
  }
}

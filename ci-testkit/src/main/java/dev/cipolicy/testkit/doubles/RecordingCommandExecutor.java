package dev.cipolicy.testkit.doubles;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandExecutor;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.InvalidCommandException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link CommandExecutor} that runs nothing: it records every command in the order the launcher issued
 * it and answers from a {@link CommandScript}. Thread-safe; a launcher that issues commands from several
 * threads gets them recorded in arrival order, which the snapshot kit's double run then shows as
 * non-determinism.
 */
public final class RecordingCommandExecutor implements CommandExecutor {
  private final CommandScript script;
  private final List<RecordedCommand> commands = new ArrayList<>();

  /**
   * An executor answering from a script.
   *
   * @param script the answers and the nodes
   */
  public RecordingCommandExecutor(CommandScript script) {
    this.script = script;
  }

  /**
   * An executor answering every command with an empty success, on one node.
   */
  public RecordingCommandExecutor() {
    this(CommandScript.empty());
  }

  @Override
  public synchronized CommandResult run(Command command) {
    String node = script.nodes().get(0);
    return recordOn(RecordedCommand.Kind.LOCAL, node, command);
  }

  @Override
  public synchronized Map<String, CommandResult> runOnAllNodes(Command command) {
    return record(RecordedCommand.Kind.ALL_NODES, script.nodes(), command);
  }

  @Override
  public synchronized CommandResult runOnNode(String node, Command command) {
    if (!script.nodes().contains(node)) {
      throw new InvalidCommandException("unknown node '" + node + "' for " + command + "; the script's nodes are "
          + script.nodes());
    }
    return recordOn(RecordedCommand.Kind.NODE, node, command);
  }

  @Override
  public List<String> nodes() {
    return script.nodes();
  }

  /**
   * The commands recorded so far.
   *
   * @return in the order they were issued
   */
  public synchronized List<RecordedCommand> commands() {
    return List.copyOf(commands);
  }

  /**
   * The script this executor answers from.
   *
   * @return the script
   */
  public CommandScript script() {
    return script;
  }

  /** Records a command run on one node and returns that node's answer (record answers every node it is given). */
  private CommandResult recordOn(RecordedCommand.Kind kind, String node, Command command) {
    return Objects.requireNonNull(record(kind, List.of(node), command).get(node));
  }

  private Map<String, CommandResult> record(RecordedCommand.Kind kind, List<String> nodes, Command command) {
    Map<String, CommandResult> results = new LinkedHashMap<>();
    for (String node : nodes) {
      results.put(node, script.answer(node, command));
    }
    Map<String, CommandResult> frozen = Collections.unmodifiableMap(results);
    commands.add(new RecordedCommand(commands.size() + 1, new RecordedCommand.Target(kind, List.copyOf(nodes)),
        command, frozen));
    return frozen;
  }
}

package dev.cipolicy.testkit.doubles;

import dev.cipolicy.launch.Command;
import dev.cipolicy.launch.CommandResult;
import dev.cipolicy.launch.InvalidCommandException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Predicate;

/**
 * What a {@link RecordingCommandExecutor} answers: the nodes it pretends to reach and, for each command,
 * the result of the first rule that matches (otherwise {@link #defaultResult()}, an empty success).
 * Immutable and shareable between launches, so long as the responders are stateless.
 *
 * <pre>{@code
 * CommandScript script = CommandScript.builder()
 *     .nodes("node-0", "node-1")
 *     .respond(CommandScript.program("nvidia-smi"), CommandResult.success("0\n1\n2\n3\n"))
 *     .respond(CommandScript.argvStartsWith("docker", "image", "inspect"), CommandResult.failure(1, "no such image"))
 *     .build();
 * }</pre>
 */
public final class CommandScript {
  /** The default node list: one node. */
  public static final String DEFAULT_NODE = "node-0";

  private final List<String> nodes;
  private final List<Rule> rules;
  private final CommandResult defaultResult;
  private final boolean recordOutputs;

  private CommandScript(Builder b) {
    this.nodes = List.copyOf(b.nodes.isEmpty() ? List.of(DEFAULT_NODE) : b.nodes);
    this.rules = List.copyOf(b.rules);
    this.defaultResult = b.defaultResult;
    this.recordOutputs = b.recordOutputs;
  }

  /**
   * An answer to a command on a node.
   */
  @FunctionalInterface
  public interface Responder {
    /**
     * Answers a command.
     *
     * @param node the node it runs on
     * @param command the command
     * @return its result
     */
    CommandResult answer(String node, Command command);
  }

  private record Rule(Predicate<Command> when, Responder responder) {}

  /**
   * A new builder.
   *
   * @return an empty script builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The script that answers every command with an empty success on one node.
   *
   * @return the script
   */
  public static CommandScript empty() {
    return builder().build();
  }

  /**
   * Matches commands by program.
   *
   * @param program the exact program
   * @return the predicate
   */
  public static Predicate<Command> program(String program) {
    return c -> c.program().equals(program);
  }

  /**
   * Matches commands whose argument vector starts with given words.
   *
   * @param prefix the first words, program included
   * @return the predicate
   */
  public static Predicate<Command> argvStartsWith(String... prefix) {
    List<String> p = List.of(prefix);
    return c -> c.argv().size() >= p.size() && c.argv().subList(0, p.size()).equals(p);
  }

  /**
   * The nodes the executor reaches.
   *
   * @return node names, never empty
   */
  public List<String> nodes() {
    return nodes;
  }

  /**
   * The result of a command that no rule matches.
   *
   * @return the default result
   */
  public CommandResult defaultResult() {
    return defaultResult;
  }

  /**
   * Whether recordings show each command's result (exit code and output) below it.
   *
   * @return the flag
   */
  public boolean recordOutputs() {
    return recordOutputs;
  }

  /**
   * The answer to a command: the first matching rule's, else the default.
   *
   * @param node the node
   * @param command the command
   * @return the result
   */
  public CommandResult answer(String node, Command command) {
    for (Rule r : rules) {
      if (r.when().test(command)) {
        CommandResult result = r.responder().answer(node, command);
        if (result == null) {
          throw new InvalidCommandException("the scripted responder for " + command + " on node " + node
              + " returned null; a responder returns a CommandResult");
        }
        return result;
      }
    }
    return defaultResult;
  }

  /** Builds a {@link CommandScript}. */
  public static final class Builder {
    private final List<String> nodes = new ArrayList<>();
    private final List<Rule> rules = new ArrayList<>();
    private CommandResult defaultResult = CommandResult.success();
    private boolean recordOutputs;

    private Builder() {}

    /**
     * The nodes the executor reaches, the local node first (default: {@value #DEFAULT_NODE} alone).
     *
     * @param names distinct node names
     * @return this builder
     * @throws InvalidCommandException for no name, a blank name or a repeated name
     */
    public Builder nodes(String... names) {
      if (names.length == 0) {
        throw new InvalidCommandException("a command script needs at least one node");
      }
      LinkedHashSet<String> distinct = new LinkedHashSet<>();
      for (String n : names) {
        if (n.isBlank()) {
          throw new InvalidCommandException("node names must not be blank; got " + List.of(names));
        }
        if (!distinct.add(n)) {
          throw new InvalidCommandException("node '" + n + "' is listed twice in " + List.of(names));
        }
      }
      nodes.clear();
      nodes.addAll(distinct);
      return this;
    }

    /**
     * Answers matching commands with a fixed result.
     *
     * @param when which commands
     * @param result the result
     * @return this builder
     */
    public Builder respond(Predicate<Command> when, CommandResult result) {
      return respond(when, (node, command) -> result);
    }

    /**
     * Answers matching commands with a function of the node and the command.
     *
     * @param when which commands
     * @param responder the answer
     * @return this builder
     */
    public Builder respond(Predicate<Command> when, Responder responder) {
      rules.add(new Rule(when, responder));
      return this;
    }

    /**
     * The result of commands no rule matches (default: an empty success).
     *
     * @param result the result
     * @return this builder
     */
    public Builder defaultResult(CommandResult result) {
      this.defaultResult = result;
      return this;
    }

    /**
     * Shows each command's result in recordings, for launchers whose products are the outputs (default:
     * off, the output is an input of the launcher and not what is under test).
     *
     * @param record whether to record results
     * @return this builder
     */
    public Builder recordOutputs(boolean record) {
      this.recordOutputs = record;
      return this;
    }

    /**
     * Builds the script.
     *
     * @return the script
     */
    public CommandScript build() {
      return new CommandScript(this);
    }
  }
}

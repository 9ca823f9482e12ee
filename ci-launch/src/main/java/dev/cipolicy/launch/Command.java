package dev.cipolicy.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One command a launcher asks a {@link CommandExecutor} to run: the argument vector (program first), the
 * environment variables set for it on top of the executor's, and an optional working directory.
 * Immutable; the environment is kept sorted by name so that a command renders the same way every time.
 *
 * <pre>{@code
 * Command pull = Command.of("docker", "pull", "radixark/miles:pr-7").withEnvironment("DOCKER_CLI_HINTS", "false");
 * }</pre>
 */
public final class Command {
  private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final List<String> argv;
  private final SortedMap<String, String> environment;
  private final @Nullable Path workingDirectory;

  private Command(List<String> argv, SortedMap<String, String> environment, @Nullable Path workingDirectory) {
    this.argv = argv;
    this.environment = environment;
    this.workingDirectory = workingDirectory;
  }

  /**
   * A command from its program and arguments.
   *
   * @param program the program, non-empty
   * @param arguments its arguments, each non-null (may be empty strings)
   * @return the command
   * @throws InvalidCommandException when the program is empty or an argument is null
   */
  public static Command of(String program, String... arguments) {
    List<String> argv = new ArrayList<>();
    argv.add(program);
    Collections.addAll(argv, arguments);
    return of(argv);
  }

  /**
   * A command from its argument vector.
   *
   * @param argv the program followed by its arguments
   * @return the command
   * @throws InvalidCommandException when {@code argv} is empty, its program is empty or an element is null
   */
  public static Command of(List<String> argv) {
    if (argv.isEmpty()) {
      throw new InvalidCommandException("a command needs at least a program; got an empty argument list");
    }
    for (int i = 0; i < argv.size(); i++) {
      if (argv.get(i) == null) {
        throw new InvalidCommandException("argument " + i + " of command " + argv + " is null");
      }
    }
    if (argv.get(0).isEmpty()) {
      throw new InvalidCommandException("the program of command " + argv + " is empty");
    }
    return new Command(List.copyOf(argv), Collections.unmodifiableSortedMap(new TreeMap<>()), null);
  }

  /**
   * This command with one more argument.
   *
   * @param argument the argument
   * @return a new command
   */
  public Command withArgument(String argument) {
    return withArguments(List.of(argument));
  }

  /**
   * This command with more arguments appended.
   *
   * @param arguments the arguments, in order
   * @return a new command
   */
  public Command withArguments(List<String> arguments) {
    List<String> more = new ArrayList<>(argv);
    more.addAll(arguments);
    Command c = of(more);
    return new Command(c.argv, environment, workingDirectory);
  }

  /**
   * This command with an environment variable set for it.
   *
   * @param name a variable name ({@code [A-Za-z_][A-Za-z0-9_]*})
   * @param value its value
   * @return a new command
   * @throws InvalidCommandException for a bad name or a variable already set on this command
   */
  public Command withEnvironment(String name, String value) {
    Objects.requireNonNull(value, "value");
    if (!VARIABLE.matcher(name).matches()) {
      throw new InvalidCommandException("environment variable name '" + name + "' of command " + argv
          + " is not valid; expected [A-Za-z_][A-Za-z0-9_]*");
    }
    if (environment.containsKey(name)) {
      throw new InvalidCommandException("environment variable " + name + " is set twice on command " + argv
          + " ('" + environment.get(name) + "', then '" + value + "')");
    }
    TreeMap<String, String> env = new TreeMap<>(environment);
    env.put(name, value);
    return new Command(argv, Collections.unmodifiableSortedMap(env), workingDirectory);
  }

  /**
   * This command with environment variables set for it.
   *
   * @param variables name → value
   * @return a new command
   * @throws InvalidCommandException for a bad name or a variable already set on this command
   */
  public Command withEnvironment(Map<String, String> variables) {
    Command c = this;
    for (Map.Entry<String, String> e : new TreeMap<>(variables).entrySet()) {
      c = c.withEnvironment(e.getKey(), e.getValue());
    }
    return c;
  }

  /**
   * This command run in a working directory.
   *
   * @param directory the directory
   * @return a new command
   */
  public Command inDirectory(Path directory) {
    return new Command(argv, environment, Objects.requireNonNull(directory, "directory"));
  }

  /**
   * The argument vector.
   *
   * @return the program followed by its arguments
   */
  public List<String> argv() {
    return argv;
  }

  /**
   * The program.
   *
   * @return the first element of {@link #argv()}
   */
  public String program() {
    return argv.get(0);
  }

  /**
   * The arguments after the program.
   *
   * @return possibly empty
   */
  public List<String> arguments() {
    return argv.subList(1, argv.size());
  }

  /**
   * The environment variables set for this command, on top of the executor's own.
   *
   * @return name → value, sorted by name
   */
  public SortedMap<String, String> environment() {
    return environment;
  }

  /**
   * The working directory.
   *
   * @return the directory, absent for the executor's own
   */
  public Optional<Path> workingDirectory() {
    return Optional.ofNullable(workingDirectory);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Command c && argv.equals(c.argv) && environment.equals(c.environment)
        && Objects.equals(workingDirectory, c.workingDirectory);
  }

  @Override
  public int hashCode() {
    return Objects.hash(argv, environment, workingDirectory);
  }

  /** The command on one line: {@code [cwd] NAME=value ... argv}, arguments joined by spaces. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    if (workingDirectory != null) {
      b.append("(in ").append(workingDirectory).append(") ");
    }
    environment.forEach((k, v) -> b.append(k).append('=').append(v).append(' '));
    return b.append(String.join(" ", argv)).toString();
  }
}

package dev.cipolicy.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * The {@code ci-policy} command. Every subcommand reads its inputs from flags or, when a flag is absent,
 * from the GitHub Actions environment variables the workflow sets. Exit codes: 0 success, 1 a policy or
 * input error (printed as {@code ::error::<message>}), 2 a usage error.
 */
@Command(
    name = "ci-policy",
    mixinStandardHelpOptions = true,
    version = "ci-policy 0.1.0",
    description = "Decides what a CI run should do, from a declarative policy.",
    subcommands = {ResolveCommand.class, ExplainCommand.class, PlanSuiteCommand.class, FileRunCommand.class,
        ConcurrencyCommand.class, CheckCommand.class, GateCommand.class, GateRevokeCommand.class, GateReplayCommand.class,
        WorkflowCommand.class, FleetCommand.class})
public final class CiPolicyCli implements Runnable {

  /** Exit code of a policy or input error. */
  public static final int EXIT_ERROR = 1;

  /** Exit code of a usage error. */
  public static final int EXIT_USAGE = 2;

  private final Map<String, String> environment;
  private final Path workingDirectory;
  private final Console console;

  CiPolicyCli(Map<String, String> environment, Path workingDirectory, PrintStream out, PrintStream err) {
    this.environment = Map.copyOf(environment);
    this.workingDirectory = workingDirectory;
    this.console = new Console(out, err);
  }

  /**
   * Runs the CLI with the process environment and standard streams, then exits with its code.
   *
   * @param args command-line arguments
   */
  public static void main(String[] args) {
    int code = run(args, System.getenv(), Path.of("").toAbsolutePath(), System.out, System.err);
    System.exit(code);
  }

  /**
   * Runs the CLI against explicit streams and environment; the entry point used by tests and hosts.
   *
   * @param args command-line arguments
   * @param environment the environment variables to fall back on
   * @param workingDirectory where relative paths are resolved
   * @param out standard output
   * @param err standard error
   * @return the exit code
   */
  public static int run(String[] args, Map<String, String> environment, Path workingDirectory,
      PrintStream out, PrintStream err) {
    return commandLine(new CiPolicyCli(environment, workingDirectory, out, err)).execute(args);
  }

  /**
   * The configured command line of a CLI: no {@code @file} expansion (an argument is never read as a file
   * unless its option names a file), picocli's output through the {@link Console}, a usage error as one
   * {@code ::error::} line and the usage, an unexpected exception as one {@code ::error::} line without a
   * stack trace.
   */
  static CommandLine commandLine(CiPolicyCli cli) {
    Console console = cli.console();
    CommandLine cmd = new CommandLine(cli);
    // picocli expands @files while the root parses, but each command line keeps its own flag: all set to false
    noAtFiles(cmd);
    cmd.setOut(console.plainWriter(false));
    cmd.setErr(console.plainWriter(true));
    cmd.setExitCodeExceptionMapper(e -> EXIT_ERROR);
    cmd.setParameterExceptionHandler((ex, a) -> {
      console.error("ci-policy: " + ex.getMessage());
      PrintWriter usage = console.plainWriter(true);
      ex.getCommandLine().usage(usage);
      usage.flush();
      return EXIT_USAGE;
    });
    cmd.setExecutionExceptionHandler((ex, c, parsed) -> {
      // our commands turn our exceptions into ::error:: themselves; anything else is a defect, still one line
      console.error("ci-policy: internal error: " + ex.getClass().getSimpleName()
          + (ex.getMessage() == null ? "" : ": " + ex.getMessage()));
      return EXIT_ERROR;
    });
    return cmd;
  }

  private static void noAtFiles(CommandLine cmd) {
    cmd.setExpandAtFiles(false);
    cmd.getSubcommands().values().forEach(CiPolicyCli::noAtFiles);
  }

  @Override
  public void run() {
    PrintWriter usage = console.plainWriter(false);
    new CommandLine(this).usage(usage);
    usage.flush();
  }

  Map<String, String> environment() {
    return environment;
  }

  Path resolvePath(String p) {
    return workingDirectory.resolve(p);
  }

  Console console() {
    return console;
  }
}

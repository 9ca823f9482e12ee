package dev.cipolicy.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

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
    subcommands = {ResolveCommand.class, PlanSuiteCommand.class, FileRunCommand.class, ConcurrencyCommand.class,
        CheckCommand.class, GateCommand.class, GateRevokeCommand.class, GateReplayCommand.class})
public final class CiPolicyCli implements Runnable {

  /** Exit code of a policy or input error. */
  public static final int EXIT_ERROR = 1;

  /** Exit code of a usage error. */
  public static final int EXIT_USAGE = 2;

  private final Map<String, String> environment;
  private final Path workingDirectory;
  private final PrintStream out;
  private final PrintStream err;

  CiPolicyCli(Map<String, String> environment, Path workingDirectory, PrintStream out, PrintStream err) {
    this.environment = Map.copyOf(environment);
    this.workingDirectory = workingDirectory;
    this.out = out;
    this.err = err;
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
    CiPolicyCli cli = new CiPolicyCli(environment, workingDirectory, out, err);
    CommandLine cmd = new CommandLine(cli);
    cmd.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cmd.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cmd.setExitCodeExceptionMapper(e -> EXIT_ERROR);
    cmd.setParameterExceptionHandler((ex, a) -> {
      err.println("ci-policy: " + ex.getMessage());
      ex.getCommandLine().usage(err);
      return EXIT_USAGE;
    });
    return cmd.execute(args);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(out);
  }

  Map<String, String> environment() {
    return environment;
  }

  Path resolvePath(String p) {
    return workingDirectory.resolve(p);
  }

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }
}

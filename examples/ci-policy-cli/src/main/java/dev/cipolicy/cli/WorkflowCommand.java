package dev.cipolicy.cli;

import java.io.PrintWriter;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine;

/**
 * {@code ci-policy workflow}: the commands on GitHub Actions workflow files, read into the job model
 * ({@code docs/workflow-model.md}). Without a subcommand it prints its usage.
 */
@Command(
    name = "workflow",
    mixinStandardHelpOptions = true,
    description = "Works on GitHub Actions workflow files: which jobs run, and why.",
    subcommands = {WorkflowSimulateCommand.class, WorkflowLintCommand.class})
final class WorkflowCommand implements Runnable {
  @ParentCommand
  private @Nullable CiPolicyCli cli;

  CiPolicyCli cli() {
    return Objects.requireNonNull(cli);
  }

  @Override
  public void run() {
    PrintWriter usage = cli().console().plainWriter(false);
    new CommandLine(this).usage(usage);
    usage.flush();
  }
}

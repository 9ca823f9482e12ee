package dev.cipolicy.cli;

import java.io.PrintWriter;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine;

/**
 * {@code ci-policy fleet}: the commands of GPU CI on the fleet ({@code docs/fleet.md}). Without a subcommand it
 * prints its usage.
 */
@Command(
    name = "fleet",
    mixinStandardHelpOptions = true,
    description = "Runs CI jobs on a shared GPU fleet through the job queue.",
    subcommands = {FleetSubmitCommand.class, FleetCancelCommand.class, FleetCollectorCommand.class, FleetLogsCommand.class,
        FleetLeaseCommand.class, FleetServeCommand.class, FleetRetireCommand.class})
final class FleetCommand implements Runnable {
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

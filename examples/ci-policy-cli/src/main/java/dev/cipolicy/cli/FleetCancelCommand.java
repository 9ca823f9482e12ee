package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.QueueStore;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy fleet cancel}: cancels the open CI runs of a pull request, or one run, in the fleet's store: their
 * queued jobs end cancelled and their hosts stop the running ones at their next heartbeat. For a workflow that runs
 * on a closed pull request, where no {@code fleet submit} of the PR's runs may be left to receive GitHub's signal.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true,
    description = "Cancels the open fleet runs of a pull request (--pr) or one run (--run-id).")
final class FleetCancelCommand implements Callable<Integer> {
  /** The most characters of a reason. */
  static final int MAX_REASON = 200;

  @ParentCommand
  private @Nullable FleetCommand parent;

  @Mixin
  private FleetStoreOptions store = new FleetStoreOptions();

  @ArgGroup(exclusive = true, multiplicity = "1")
  private @Nullable Target target;

  static final class Target {
    @Option(names = "--pr", paramLabel = "N", description = "Every open run of this pull request.")
    @Nullable Long pr;

    @Option(names = "--run-id", paramLabel = "N", description = "The run with this workflow run id (every attempt).")
    @Nullable Long runId;
  }

  @Option(names = "--repository", paramLabel = "OWNER/NAME", description = "The repository [GITHUB_REPOSITORY].")
  private @Nullable String repository;

  @Option(names = "--reason", paramLabel = "TEXT", defaultValue = "cancelled by ci-policy fleet cancel",
      description = "Why, kept with each run (default: ${DEFAULT-VALUE}).")
  private String reason = "";

  @Override
  public Integer call() {
    CiPolicyCli cli = Objects.requireNonNull(parent).cli();
    try {
      Target t = Objects.requireNonNull(target);
      String repo = Inputs.flagOrEnv(repository, cli.environment(), "GITHUB_REPOSITORY").filter(s -> !s.isBlank())
          .orElseThrow(() -> new InvalidInputException("no repository: pass --repository or set GITHUB_REPOSITORY"));
      if ((t.pr != null && t.pr < 1) || (t.runId != null && t.runId < 1)) {
        throw new InvalidInputException("--pr and --run-id must be positive");
      }
      if (reason.isBlank() || reason.length() > MAX_REASON || reason.contains("\n")) {
        throw new InvalidInputException("--reason must be one line of 1 to " + MAX_REASON + " characters");
      }
      QueueStore queue = store.open(cli.environment());
      List<Request> runs = queue.openRequests().stream().filter(r -> r.ciRun().map(run ->
          run.repository().equals(repo) && (t.pr != null ? run.pr().orElse(-1) == t.pr : run.runId() == t.runId))
          .orElse(false)).toList();
      String what = t.pr != null ? "pull request " + t.pr : "run id " + t.runId;
      if (runs.isEmpty()) {
        cli.console().line(Console.plain("no open fleet run of " + repo + " " + what));
        return 0;
      }
      for (Request r : runs) {
        CancelResult result = queue.cancel(r.id(), reason);
        cli.console().line(Console.plain(result.status().name().toLowerCase(Locale.ROOT) + " "
            + r.ciRun().map(CiRun::label).orElse("") + " (request " + r.id().value() + "): "
            + result.queuedJobsCancelled() + " queued jobs cancelled, " + result.leasedJobsFlagged()
            + " running jobs stopped at their next heartbeat"));
      }
      return 0;
    } catch (CiPolicyException e) {
      Annotations.report(cli, e);
      return CiPolicyCli.EXIT_ERROR;
    }
  }
}

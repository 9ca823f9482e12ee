package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.spi.QueueStore;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy fleet logs JOB}: prints a job's log as the store keeps it (its first and last 64 KiB, with a
 * line saying how many bytes between them were left out), of its latest attempt or the one given. With
 * {@code --follow} it keeps printing what the job writes until that attempt ends. Every line is printed so that
 * the Actions runner never reads it as a workflow command.
 */
@Command(name = "logs", mixinStandardHelpOptions = true, description = "Prints a fleet job's log.")
final class FleetLogsCommand implements Callable<Integer> {
  /** How often {@code --follow} reads the log again. */
  static final long FOLLOW_MILLIS = 1000;

  @ParentCommand
  private @Nullable FleetCommand parent;

  @Mixin
  private FleetStoreOptions store = new FleetStoreOptions();

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id.")
  private long job;

  @Option(names = "--attempt", paramLabel = "N", description = "The attempt (default: the latest).")
  private @Nullable Integer attempt;

  @Option(names = "--follow", description = "Keep printing what the job writes until the attempt ends.")
  private boolean follow;

  @Override
  public Integer call() {
    CiPolicyCli cli = Objects.requireNonNull(parent).cli();
    try {
      if (job < 1) {
        throw new InvalidInputException("job id " + job + " is not positive; expected the id a job's page or"
            + " fleet submit shows");
      }
      QueueStore queue = store.open(cli.environment());
      JobId id = JobId.of(job);
      Optional<JobLogView> first = attempt == null ? queue.log(id) : queue.log(id, attempt, 0);
      if (first.isEmpty()) {
        throw new InvalidInputException("job " + job + (attempt == null ? "" : " attempt " + attempt)
            + " has no log in the store (no such job, or it has not started)");
      }
      JobLogView view = first.get();
      print(cli, view.text());
      while (follow && !view.finished()) {
        Thread.sleep(FOLLOW_MILLIS);
        // A view returns everything written up to its total, so the next read starts there.
        long at = view.totalBytes();
        view = queue.log(id, view.attempt(), at).orElse(view);
        if (view.offset() == at) {
          print(cli, view.text());
        }
      }
      return 0;
    } catch (CiPolicyException e) {
      Annotations.report(cli, e);
      return CiPolicyCli.EXIT_ERROR;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CiPolicyCli.EXIT_ERROR;
    }
  }

  private static void print(CiPolicyCli cli, String text) {
    if (!text.isEmpty()) {
      cli.console().lines(text);
    }
  }
}

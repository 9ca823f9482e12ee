package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RetireResult;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy fleet retire HOST}: retires a fleet host (a collector) in the shared store. It claims nothing
 * more at once; the jobs it runs keep their leases to their end (or expiry), and once it holds none it is gone
 * from the store, so its name may register again as a new host. An unknown host is one error line naming the
 * hosts the store has.
 */
@Command(name = "retire", mixinStandardHelpOptions = true, description = "Retires a fleet host: it claims no more"
    + " jobs, its running jobs finish, then it is gone from the store.")
final class FleetRetireCommand implements Callable<Integer> {
  @ParentCommand
  private @Nullable FleetCommand parent;

  @Mixin
  private FleetStoreOptions store = new FleetStoreOptions();

  @Parameters(index = "0", paramLabel = "HOST", description = "The host's name in the queue.")
  private String host = "";

  @Override
  public Integer call() {
    CiPolicyCli cli = Objects.requireNonNull(parent).cli();
    try {
      Checks.token(host, "host name");
      QueueStore queue = store.open(cli.environment());
      RetireResult result = queue.retireCollector(host);
      switch (result.status()) {
        case RETIRED -> cli.console().line("host " + host + " retired: it claims no more jobs and is gone from the"
            + " store");
        case RETIRING -> cli.console().line("host " + host + " is retiring: it claims no more jobs; its running"
            + " jobs keep their leases until they end or expire, then it is gone from the store");
        case NOT_FOUND -> {
          List<String> hosts = queue.collectors().stream().map(Collector::name).toList();
          throw new InvalidInputException("no fleet host named " + host + " in the store; expected one of "
              + hosts);
        }
      }
      return 0;
    } catch (CiPolicyException e) {
      Annotations.report(cli, e);
      return CiPolicyCli.EXIT_ERROR;
    }
  }
}

package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.policy.RunnerPool;
import dev.cipolicy.core.load.LoadedPolicy;
import dev.cipolicy.fleet.collector.CiJobRunner;
import dev.cipolicy.fleet.workspace.GitWorkspaces;
import dev.cipolicy.postgres.PostgresQueueOptions;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.postgres.PostgresQueueWakeups;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.worker.CollectorRuntime;
import dev.cipolicy.queue.worker.Wakeups;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ci-policy fleet collector}: the daemon of one GPU host. It registers the host's devices (detected or
 * given) under its name in its pool, claims the pool's CI jobs, and runs each on its granted devices in a fresh
 * checkout of the run's commit, until SIGTERM or SIGINT; then it stops claiming and finishes or releases its jobs
 * within the grace. A pool the policy does not declare is refused at start.
 */
@Command(name = "collector", mixinStandardHelpOptions = true,
    description = "Runs this GPU host's collector: claims CI jobs of its pool and runs them on their devices.")
final class FleetCollectorCommand implements Callable<Integer> {
  @ParentCommand
  private @Nullable FleetCommand parent;

  @Mixin
  private FleetStoreOptions store = new FleetStoreOptions();

  @Option(names = "--policy", required = true, paramLabel = "FILE", description = "The policy document; its fleet"
      + " pools are the pools a collector may serve.")
  private String policy = "";

  @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The runner pool this host serves.")
  private String pool = "";

  @Mixin
  private FleetHostOptions hostOptions = new FleetHostOptions();

  @Option(names = "--remote", paramLabel = "REPO=URL", description = "Where this host fetches a repository from"
      + " (repeatable), e.g. acme/trainer=https://github.com/acme/trainer.git.")
  private List<String> remotes = new ArrayList<>();

  @Option(names = "--remote-template", paramLabel = "URL", defaultValue = "", description = "The remote of any"
      + " other repository, {repository} standing for owner/name; empty to serve only --remote.")
  private String remoteTemplate = "";

  @Option(names = "--cache-dir", paramLabel = "DIR", defaultValue = "/var/cache/ci-policy/git",
      description = "The cached clones (default: ${DEFAULT-VALUE}).")
  private String cacheDir = "";

  @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "/var/lib/ci-policy/work",
      description = "The jobs' workspaces (default: ${DEFAULT-VALUE}).")
  private String workDir = "";

  @Option(names = "--container-runtime", paramLabel = "PROGRAM", defaultValue = "",
      description = "docker or podman, to run jobs that name an image in a container; empty to run on the host.")
  private String containerRuntime = "";

  @Option(names = "--lease-seconds", defaultValue = "60", description = "How long a lease lasts unless renewed;"
      + " a dead host's jobs run elsewhere after it (default: ${DEFAULT-VALUE}).")
  private long leaseSeconds = 60;

  @Option(names = "--grace-seconds", defaultValue = "300", description = "How long SIGTERM waits for running jobs"
      + " before releasing them (default: ${DEFAULT-VALUE}).")
  private long graceSeconds = 300;

  /**
   * A pool where {@code fleet lease} processes hold or wait for devices is the lease pool of one host (ADR 0006):
   * a daemon joining it would claim their jobs, which it cannot run, and give their devices to CI jobs. (A lease
   * started after the daemon refuses the pool by itself: another collector serves it.)
   */
  private void refuseALeasePool(JobQueue queue) {
    var view = queue.pool(pool);
    java.util.stream.Stream<dev.cipolicy.queue.model.JobId> held = view.hosts().stream()
        .flatMap(h -> h.holdings().stream()).map(h -> h.job());
    java.util.stream.Stream<dev.cipolicy.queue.model.JobId> waiting = view.waits().stream().map(w -> w.job().id());
    java.util.Optional<dev.cipolicy.queue.model.Job> lease = java.util.stream.Stream.concat(held, waiting)
        .map(id -> queue.store().job(id)).flatMap(java.util.Optional::stream)
        .filter(j -> j.spec().benchmarkGroup().equals(FleetLeaseCommand.LEASE_GROUP)).findFirst();
    if (lease.isPresent()) {
      String holder = lease.get().lease().map(l -> " (host " + l.collector() + ")").orElse("");
      throw new InvalidInputException("pool '" + pool + "' is a lease pool: fleet lease processes use it" + holder
          + ", and a lease pool holds one host; give this collector a pool of its own with --pool");
    }
  }

  @Override
  public Integer call() {
    CiPolicyCli cli = Objects.requireNonNull(parent).cli();
    try {
      LoadedPolicy loaded = Inputs.loadPolicy(cli, policy);
      List<String> pools = loaded.policy().pools().stream().map(RunnerPool::name).toList();
      if (!pools.contains(pool)) {
        throw new InvalidInputException("pool '" + pool + "' is not in the policy's fleet; expected one of " + pools);
      }
      String host = hostOptions.name(cli.environment());
      Devices inventory = hostOptions.inventory(cli.environment());
      Map<String, String> remoteMap = remoteMap();
      DataSource ds = store.dataSource(cli.environment());
      String schema = store.schema(cli.environment());
      JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, schema), QueueSettings.builder().noJobs(true)
          .leaseDuration(Duration.ofSeconds(leaseSeconds)).collectorTimeout(Duration.ofSeconds(leaseSeconds)).build());
      refuseALeasePool(queue);
      // The policy is the fleet's one source of its shares: every collector sets them at start, so a changed
      // policy takes effect when the collectors restart on it.
      dev.cipolicy.queue.model.FleetShares shares = dev.cipolicy.queue.model.FleetShares.fromPolicy(
          loaded.policy().fleetShares());
      queue.setShares(shares);
      PostgresQueueWakeups wakeups = PostgresQueueWakeups.start(ds, PostgresQueueOptions.inSchema(schema));
      GitWorkspaces workspaces = new GitWorkspaces(cli.resolvePath(cacheDir), cli.resolvePath(workDir),
          GitWorkspaces.DEFAULT_TIMEOUT, "git");
      CollectorRuntime runtime = CollectorRuntime.builder(queue).name(host).tag(pool).devices(inventory)
          .runner(new CiJobRunner(workspaces, remoteMap, remoteTemplate, containerRuntime))
          .concurrency(Math.max(1, inventory.indices().size()))
          .wakeups(Wakeups.of(wakeups::generation, wakeups::awaitQueued))
          .shutdownGrace(Duration.ofSeconds(graceSeconds))
          .onJobDone(r -> cli.console().line("job " + r.job().id().value() + " " + r.job().spec().benchmarkGroup() + ": "
              + r.disposition().name().toLowerCase(java.util.Locale.ROOT)
              + r.failure().map(f -> " (" + f.detail() + ")").orElse("")))
          .start();
      cli.console().line("collector " + host + " serves pool " + pool + " with devices " + inventory.indices()
          + (inventory.groups().isEmpty() ? "" : " in groups " + inventory.groups())
          + (shares.isEmpty() ? "" : "; the store enforces the policy's " + shares.shares().size() + " fleet shares"));
      runtime.registration().flatMap(FleetCollectorLines::registration).ifPresent(cli.console()::line);
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        runtime.close(Duration.ofSeconds(graceSeconds));
        wakeups.close();
        stopped.countDown();
      }, "collector-shutdown"));
      stopped.await();
      return 0;
    } catch (CiPolicyException e) {
      Annotations.report(cli, e);
      return CiPolicyCli.EXIT_ERROR;
    } catch (IOException e) {
      cli.console().error(Inputs.describe(e));
      return CiPolicyCli.EXIT_ERROR;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CiPolicyCli.EXIT_ERROR;
    }
  }

  private Map<String, String> remoteMap() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String r : remotes) {
      int eq = r.indexOf('=');
      if (eq <= 0 || eq == r.length() - 1) {
        throw new InvalidInputException("--remote '" + r + "' is not REPO=URL, e.g."
            + " acme/trainer=https://github.com/acme/trainer.git");
      }
      m.put(r.substring(0, eq), r.substring(eq + 1));
    }
    return m;
  }
}

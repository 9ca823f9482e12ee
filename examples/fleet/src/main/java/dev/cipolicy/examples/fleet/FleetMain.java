package dev.cipolicy.examples.fleet;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.postgres.PostgresQueueOptions;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.postgres.PostgresQueueWakeups;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.worker.Wakeups;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code fleet}: starts the reference fleet with its status page ({@code serve}, the default), runs one
 * simulated collector against a PostgreSQL queue ({@code collector}), or replays a simulated week and reports
 * the ETA error ({@code eta-error}).
 */
@Command(name = "fleet", mixinStandardHelpOptions = true,
    description = "The reference GPU fleet on the ci-policy job queue, with a live status page.",
    subcommands = {FleetMain.Collector.class, EtaErrorHarness.Command.class})
public final class FleetMain implements Callable<Integer> {

  @Option(names = "--host", description = "address of the status page (default: ${DEFAULT-VALUE})")
  String host = "127.0.0.1";

  @Option(names = "--port", description = "port of the status page; 0 for any free one (default: ${DEFAULT-VALUE})")
  int port = 7070;

  @Option(names = "--scale", description = "simulated seconds per second of a suite's estimate "
      + "(default: ${DEFAULT-VALUE}: a 30-minute suite runs 9 s)")
  double scale = 0.005;

  @Option(names = "--lease-seconds", description = "lease duration; a dead collector is offline within twice it "
      + "(default: ${DEFAULT-VALUE})")
  long leaseSeconds = 10;

  @Option(names = "--master-every-seconds", description = "how often a commit lands (default: ${DEFAULT-VALUE})")
  long masterEverySeconds = 45;

  @Option(names = "--failure-rate", description = "share of job runs that fail (default: ${DEFAULT-VALUE})")
  double failureRate = 0.06;

  @Option(names = "--seed", description = "seed of durations and failures (default: ${DEFAULT-VALUE})")
  long seed = 1;

  @Option(names = "--controls", description = "enable the cancel and deactivate controls (needs a token)")
  boolean controls;

  @Option(names = "--token-env", description = "environment variable holding the controls' token "
      + "(default: ${DEFAULT-VALUE})")
  String tokenEnv = "FLEET_TOKEN";

  @Option(names = "--pg-url", description = "run on PostgreSQL (e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres),"
      + " collectors as separate processes")
  @Nullable String pgUrl;

  @Option(names = "--pg-schema", description = "schema of the queue tables (default: ${DEFAULT-VALUE})")
  String pgSchema = "fleet";

  @Option(names = "--no-spawn", description = "with --pg-url: start no collector processes (run 'fleet collector' "
      + "yourself)")
  boolean noSpawn;

  /**
   * Runs the command line.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new FleetMain()).execute(args));
  }

  Fleet.Options options(boolean collectorsInProcess) {
    String token = null;
    if (controls) {
      token = System.getenv(tokenEnv);
      if (token == null || token.length() < 8) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--controls needs a token of at least 8 "
            + "characters in the environment variable " + tokenEnv);
      }
    }
    return new Fleet.Options(host, port, scale, Duration.ofSeconds(leaseSeconds),
        Duration.ofSeconds(masterEverySeconds), failureRate, seed, token, collectorsInProcess);
  }

  @Override
  public Integer call() throws Exception {
    List<Process> spawned = new ArrayList<>();
    Fleet fleet;
    if (pgUrl == null) {
      fleet = Fleet.inMemory(options(true));
      System.out.println("fleet: in-memory store, " + Host.reference().size() + " collectors in this process");
    } else {
      QueueStore store = PostgresQueueStore.create(dataSource(pgUrl), pgSchema);
      fleet = Fleet.on(store, options(false));
      System.out.println("fleet: PostgreSQL store " + pgSchema + " at " + pgUrl.replaceAll("password=[^&]*", "password=***"));
      if (!noSpawn) {
        for (Host h : Host.reference()) {
          spawned.add(spawnCollector(h));
        }
        System.out.println("fleet: " + spawned.size() + " collector processes started");
      }
    }
    System.out.println("fleet: status page at http://" + host + ":" + fleet.port() + "/ (JSON: /api/v1)");
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      spawned.forEach(Process::destroy);
      fleet.close();
      stop.countDown();
    }));
    stop.await();
    return 0;
  }

  private Process spawnCollector(Host h) throws java.io.IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
        FleetMain.class.getName(), "collector", "--pg-url", pgUrl == null ? "" : pgUrl, "--pg-schema", pgSchema,
        "--name", h.name(), "--lease-seconds", Long.toString(leaseSeconds), "--scale", Double.toString(scale),
        "--failure-rate", Double.toString(failureRate), "--seed", Long.toString(seed)));
    return new ProcessBuilder(cmd).inheritIO().start();
  }

  static HikariDataSource dataSource(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    config.setPoolName("fleet");
    return new HikariDataSource(config);
  }

  /** {@code fleet collector}: one simulated host's collector on a PostgreSQL queue, until killed. */
  @Command(name = "collector", mixinStandardHelpOptions = true,
      description = "Runs one simulated collector of the reference fleet against a PostgreSQL queue.")
  static final class Collector implements Callable<Integer> {
    @Option(names = "--pg-url", required = true, description = "the queue's database")
    String pgUrl = "";

    @Option(names = "--pg-schema", description = "schema of the queue tables (default: ${DEFAULT-VALUE})")
    String pgSchema = "fleet";

    @Option(names = "--name", required = true, description = "the reference host, e.g. h200-0")
    String name = "";

    @Option(names = "--lease-seconds", description = "lease duration (default: ${DEFAULT-VALUE})")
    long leaseSeconds = 10;

    @Option(names = "--scale", description = "time scale of the estimates (default: ${DEFAULT-VALUE})")
    double scale = 0.005;

    @Option(names = "--failure-rate", description = "share of job runs that fail (default: ${DEFAULT-VALUE})")
    double failureRate = 0.06;

    @Option(names = "--seed", description = "seed of durations and failures (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Override
    public Integer call() throws Exception {
      Host host = Host.reference().stream().filter(h -> h.name().equals(name)).findFirst().orElseThrow(
          () -> new CommandLine.ParameterException(new CommandLine(this), "no reference host " + name + "; expected one of "
              + Host.reference().stream().map(Host::name).toList()));
      HikariDataSource ds = dataSource(pgUrl);
      QueueStore store = PostgresQueueStore.create(ds, pgSchema);
      // Woken by the store's NOTIFY when jobs of its pool are queued; a claim every 2 s covers a lost one.
      PostgresQueueWakeups notifications = PostgresQueueWakeups.start(ds, PostgresQueueOptions.inSchema(pgSchema));
      Fleet.Options o = new Fleet.Options("127.0.0.1", 0, scale, Duration.ofSeconds(leaseSeconds),
          Duration.ofSeconds(60), failureRate, seed + name.hashCode(), null, false);
      JobQueue queue = JobQueue.of(store, Fleet.settings(Inventory.reference(), o));
      SimulatedCollector c = new SimulatedCollector(queue, host, new JobBehaviour(seed, failureRate),
          o.leaseDuration()).wakingOn(Wakeups.of(notifications::generation, notifications::awaitQueued),
          Duration.ofSeconds(2));
      c.start();
      System.out.println("collector " + name + " (" + host.pool() + ", " + host.gpus() + " GPUs) claiming");
      new CountDownLatch(1).await();
      return 0;
    }
  }
}

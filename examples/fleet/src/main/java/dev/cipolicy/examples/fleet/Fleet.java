package dev.cipolicy.examples.fleet;

import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.fleet.server.FleetView;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.SubmitResult;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The running reference fleet: the queue on a store, the ci-fleet server over it (its site loop, the status page
 * and the JSON API), the submitter of master, try and nightly requests, and the simulated collectors of this
 * process.
 */
public final class Fleet implements AutoCloseable {

  /**
   * How the fleet runs.
   *
   * @param host the status server's address
   * @param port the status server's port; 0 for any
   * @param scale simulated seconds per second of a job's estimate (0.005: a 30-minute suite runs 9 s)
   * @param leaseDuration the queue's lease duration (a dead collector is offline within twice this)
   * @param masterEvery how often a master commit is submitted
   * @param failureRate the share of job runs that fail
   * @param seed the seed of the jobs' durations and failures
   * @param token the controls' token, or null when the controls are off
   * @param collectorsInProcess whether this process runs the collectors (false when they are separate processes)
   */
  public record Options(String host, int port, double scale, Duration leaseDuration, Duration masterEvery,
      double failureRate, long seed, @Nullable String token, boolean collectorsInProcess) {

    /**
     * The defaults of the one-command demo.
     *
     * @return the options
     */
    public static Options defaults() {
      return new Options("127.0.0.1", 7070, 0.005, Duration.ofSeconds(10), Duration.ofSeconds(45), 0.06, 1, null,
          true);
    }
  }

  private final JobQueue queue;
  private final Inventory inventory;
  private final Options options;
  private final Map<String, SimulatedCollector> collectors = new HashMap<>();
  private final ScheduledExecutorService site;
  private final FleetServer server;
  private final Random random;
  private int commits;
  private long nextPr = 4100;
  private @Nullable String lastMaster;

  private Fleet(QueueStore store, Options options) {
    this.options = options;
    this.inventory = Inventory.reference();
    this.random = new Random(options.seed());
    // The policy's fleet shares, enforced by the store at every claim (SHARE_FULL when a cadence is at its cap).
    store.setShares(FleetShares.fromPolicy(inventory.shares()));
    this.queue = JobQueue.of(store, settings(inventory, options));
    if (options.collectorsInProcess()) {
      JobBehaviour behaviour = new JobBehaviour(options.seed(), options.failureRate());
      for (Host h : Host.reference()) {
        SimulatedCollector c = new SimulatedCollector(queue, h, behaviour, options.leaseDuration());
        collectors.put(h.name(), c);
        c.start();
      }
    }
    this.site = Executors.newScheduledThreadPool(1, r -> {
      Thread t = new Thread(r, "fleet-submitter");
      t.setDaemon(true);
      return t;
    });
    submitInitial();
    site.scheduleWithFixedDelay(this::submitMore, options.masterEvery().toMillis(), options.masterEvery().toMillis(),
        TimeUnit.MILLISECONDS);
    // The product's server: the site loop ticks the queue, the page and its API show it.
    this.server = FleetServer.builder(queue).shares(inventory.shares()).bind(options.host()).port(options.port())
        .token(options.token()).onSiteError(e -> System.err.println("site tick: " + e.getMessage())).start();
  }

  /**
   * The queue settings of the fleet: the inventory's jobs, at most two requests in progress, the lease time,
   * and collectors offline after one lease time without a heartbeat.
   *
   * @param inventory the inventory
   * @param options the options
   * @return the settings
   */
  public static QueueSettings settings(Inventory inventory, Options options) {
    return QueueSettings.builder().planner(inventory.planner(options.scale())).maxInProgress(2)
        .leaseDuration(options.leaseDuration()).collectorTimeout(options.leaseDuration())
        .expectedRequestDuration(Duration.ofSeconds(Math.max(1, Math.round(3 * 3600 * options.scale()))))
        .build();
  }

  /**
   * Starts a fleet on the embedded in-memory store.
   *
   * @param options how it runs
   * @return the running fleet
   */
  public static Fleet inMemory(Options options) {
    return new Fleet(new InMemoryQueueStore(Clock.systemUTC()), options);
  }

  /**
   * Starts a fleet on a given store (PostgreSQL).
   *
   * @param store the store
   * @param options how it runs
   * @return the running fleet
   */
  public static Fleet on(QueueStore store, Options options) {
    return new Fleet(store, options);
  }

  /**
   * The queue.
   *
   * @return the queue
   */
  public JobQueue queue() {
    return queue;
  }

  /**
   * The view of the status API.
   *
   * @return the view
   */
  public FleetView view() {
    return server.view();
  }

  /**
   * The status server's port.
   *
   * @return the port
   */
  public int port() {
    return server.port();
  }

  /**
   * Kills a simulated collector of this process, as a crashed host.
   *
   * @param name the collector
   */
  public void kill(String name) {
    SimulatedCollector c = collectors.get(name);
    if (c == null) {
      throw new IllegalArgumentException("no collector " + name + " runs in this process");
    }
    c.kill();
  }

  private synchronized void submitInitial() {
    // The nightly is a CI run with the nightly's planned jobs: in progress at once, beside the K benchmark slots.
    long day = LocalDate.now(ZoneOffset.UTC).toEpochDay();
    queue.submitCiRun(CiRun.of(Inventory.REPOSITORY, day, 1, sha(), "schedule").withCadence("nightly")
        .withConcurrencyGroup("nightly"), inventory.specs("nightly", options.scale()));
    submitMaster();
    submitTry();
    submitMaster();
  }

  private synchronized void submitMore() {
    try {
      attachArtifacts();
      long open = queue.store().openRequests().size();
      if (open >= 6) {
        return;
      }
      if (commits % 3 == 2) {
        submitTry();
      } else {
        submitMaster();
      }
    } catch (RuntimeException e) {
      System.err.println("site submit: " + e.getMessage());
    }
  }

  private String sha() {
    return String.format(Locale.ROOT, "%07x", random.nextInt(1 << 28));
  }

  private void submitMaster() {
    String sha = sha();
    SubmitResult r = queue.submit(NewRequest.master(sha, lastMaster));
    if (r.status() == SubmitResult.Status.CREATED) {
      lastMaster = sha;
    }
    commits++;
  }

  private void submitTry() {
    queue.submit(NewRequest.tryAwaitingArtifacts(nextPr++));
    commits++;
  }

  /** Attaches artifacts to the try requests waiting for them (a build finished), comparing with master. */
  private void attachArtifacts() {
    List<Request> waiting = new ArrayList<>();
    for (Request r : queue.store().openRequests()) {
      if (r.state() == RequestState.WAITING_FOR_ARTIFACTS) {
        waiting.add(r);
      }
    }
    for (Request r : waiting) {
      if (lastMaster != null && r.createdAt().isBefore(queue.store().now().minus(options.masterEvery()))) {
        queue.attachArtifacts(r.id(), sha(), lastMaster);
      }
    }
  }

  @Override
  public void close() {
    server.close();
    site.shutdownNow();
    collectors.values().forEach(SimulatedCollector::kill);
  }
}

package dev.cipolicy.examples.fleet;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.worker.CollectorRuntime;
import dev.cipolicy.queue.worker.JobContext;
import dev.cipolicy.queue.worker.JobOutcome;
import dev.cipolicy.queue.worker.Wakeups;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One simulated host: a {@link CollectorRuntime} of the collector runtime (ci-queue-worker) whose {@link
 * dev.cipolicy.queue.worker.JobRunner} sleeps for the job's simulated duration and completes it with the run
 * time as its result (what the status page's ETAs learn from), or fails it. The runtime claims while it has
 * room (one job per device or CPU slot), renews the leases, and stops a cancelled job. {@link #kill()} stops
 * it dead, as a crashed host: no release, no more heartbeats, so its leases expire.
 */
public final class SimulatedCollector {
  private final JobQueue queue;
  private final Host host;
  private final JobBehaviour behaviour;
  private final Duration leaseDuration;
  private Wakeups wakeups = Wakeups.polling();
  private Duration claimInterval = Duration.ofMillis(200);
  private volatile @Nullable CollectorRuntime collector;
  private volatile boolean dead;

  /**
   * A collector, not started.
   *
   * @param queue the queue engine on the shared store
   * @param host the host it runs on
   * @param behaviour how long jobs run and whether they fail
   * @param leaseDuration the queue's lease duration; leases are renewed at a third of it
   */
  public SimulatedCollector(JobQueue queue, Host host, JobBehaviour behaviour, Duration leaseDuration) {
    this.queue = queue;
    this.host = host;
    this.behaviour = behaviour;
    this.leaseDuration = leaseDuration;
  }

  /**
   * The host.
   *
   * @return the host
   */
  public Host host() {
    return host;
  }

  /**
   * Wakes the collector on the store's notifications instead of polling every 200 ms; between them it
   * still claims every {@code interval}.
   *
   * @param notifications the store's wake-ups, e.g. over PostgreSQL's LISTEN/NOTIFY
   * @param interval the claim interval between notifications
   * @return this collector, before {@link #start()}
   */
  public SimulatedCollector wakingOn(Wakeups notifications, Duration interval) {
    this.wakeups = notifications;
    this.claimInterval = interval;
    return this;
  }

  /** Registers (a no-op when already registered) and starts claiming. */
  public void start() {
    collector = CollectorRuntime.builder(queue).name(host.name()).tag(host.pool())
        .devices(host.gpus() > 0 ? Devices.count(host.gpus()) : Devices.none())
        .concurrency(host.capacity()).claimInterval(claimInterval).wakeups(wakeups)
        .heartbeatInterval(leaseDuration.dividedBy(3)).runner(this::run).start();
  }

  private JobOutcome run(JobContext context) throws InterruptedException {
    long start = System.nanoTime();
    Duration d = behaviour.duration(context.spec());
    if (context.awaitStop(d)) {
      return JobOutcome.permanentFailure("stopped: " + context.stopReason().map(Object::toString).orElse("?"));
    }
    String error = behaviour.failure(context.spec());
    if (error != null) {
      return JobOutcome.permanentFailure(error);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return JobOutcome.success(ResultPayload.ofText(String.format(Locale.ROOT, "{\"seconds\":%.3f}", seconds)));
  }

  /** Stops the collector dead, as a crash: its leases are left to expire. */
  public void kill() {
    dead = true;
    CollectorRuntime c = collector;
    if (c != null) {
      c.abandon();
    }
  }

  /**
   * Whether it was killed.
   *
   * @return true after {@link #kill()}
   */
  public boolean isDead() {
    return dead;
  }
}

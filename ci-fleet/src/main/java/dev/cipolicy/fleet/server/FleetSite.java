package dev.cipolicy.fleet.server;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.queue.JobQueue;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The site loop of a fleet: one thread that ticks the queue at a fixed delay, so that requests start (up to the
 * queue's limit of requests in progress, their jobs planned by the queue's planner), finished requests complete
 * and expired leases return their jobs. A tick that fails is reported and the next one runs as usual.
 */
public final class FleetSite implements AutoCloseable {
  /** The delay between two ticks unless one is given. */
  public static final Duration DEFAULT_TICK = Duration.ofMillis(200);

  private final ScheduledExecutorService thread;

  private FleetSite(ScheduledExecutorService thread) {
    this.thread = thread;
  }

  /**
   * Starts ticking a queue.
   *
   * @param queue the queue
   * @param every the delay between the end of one tick and the start of the next (at least 1 ms)
   * @param onError told of each tick that failed (e.g. the store was unreachable)
   * @return the running loop
   */
  public static FleetSite start(JobQueue queue, Duration every, Consumer<RuntimeException> onError) {
    if (every.toMillis() < 1) {
      throw new InvalidInputException("the site's tick delay " + every + " is below 1 ms");
    }
    ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "fleet-site");
      t.setDaemon(true);
      return t;
    });
    // A tick never throws (its failure goes to onError), so the loop's future has nothing to report.
    ScheduledFuture<?> unused = thread.scheduleWithFixedDelay(() -> {
      try {
        queue.tick();
      } catch (RuntimeException e) {
        onError.accept(e);
      }
    }, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    return new FleetSite(thread);
  }

  /** Stops ticking; a tick under way is interrupted. */
  @Override
  public void close() {
    thread.shutdownNow();
  }
}

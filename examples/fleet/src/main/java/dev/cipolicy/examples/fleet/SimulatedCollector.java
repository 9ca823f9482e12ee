package dev.cipolicy.examples.fleet;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.spi.Claim;
import dev.cipolicy.queue.spi.Devices;
import dev.cipolicy.queue.spi.Failure;
import dev.cipolicy.queue.spi.Lease;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.ResultPayload;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One simulated host's collector: it registers with its devices, claims the jobs of its pool while it has
 * room, runs each by sleeping for its simulated duration while renewing the lease, and completes it with the
 * run time as its result (what the status page's ETAs learn from), or fails it. {@link #kill()} stops it
 * dead, as a crashed host: no release, no more heartbeats, so its leases expire.
 */
public final class SimulatedCollector {
  private final JobQueue queue;
  private final Host host;
  private final JobBehaviour behaviour;
  private final Duration heartbeatEvery;
  private final AtomicInteger running = new AtomicInteger();
  private final ExecutorService jobs;
  private final Thread loop;
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
    this.heartbeatEvery = leaseDuration.dividedBy(3);
    this.jobs = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "job-" + host.name());
      t.setDaemon(true);
      return t;
    });
    this.loop = new Thread(this::run, "collector-" + host.name());
    this.loop.setDaemon(true);
  }

  /**
   * The host.
   *
   * @return the host
   */
  public Host host() {
    return host;
  }

  /** Registers (a no-op when already registered) and starts claiming. */
  public void start() {
    if (host.gpus() > 0) {
      queue.store().registerCollector(host.name(), host.pool(), true, Devices.count(host.gpus()));
    } else {
      queue.registerCollector(host.name(), host.pool(), true);
    }
    loop.start();
  }

  /** Stops the collector dead, as a crash: its leases are left to expire. */
  public void kill() {
    dead = true;
    loop.interrupt();
    jobs.shutdownNow();
  }

  /**
   * Whether it was killed.
   *
   * @return true after {@link #kill()}
   */
  public boolean isDead() {
    return dead;
  }

  private void run() {
    long lastBeat = 0;
    while (!dead) {
      try {
        int room = host.capacity() - running.get();
        boolean claimed = false;
        if (room > 0) {
          for (Claim c : queue.claim(host.name(), room).claims()) {
            claimed = true;
            running.incrementAndGet();
            jobs.execute(() -> runJob(c));
          }
        }
        long nowNanos = System.nanoTime();
        if (!claimed && nowNanos - lastBeat > heartbeatEvery.toNanos()) {
          queue.collectorHeartbeat(host.name());
          lastBeat = nowNanos;
        }
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        if (dead) {
          return;
        }
        System.err.println("collector " + host.name() + ": " + e.getMessage());
        sleepQuietly(500);
      }
    }
  }

  private void runJob(Claim claim) {
    Lease lease = claim.lease();
    try {
      Duration d = behaviour.duration(claim.job().spec());
      long start = System.nanoTime();
      long end = start + d.toNanos();
      while (true) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          break;
        }
        Thread.sleep(Math.max(1, Math.min(left, heartbeatEvery.toNanos()) / 1_000_000));
        if (dead) {
          return;
        }
        if (end - System.nanoTime() > 0) {
          LeaseResult beat = queue.heartbeat(lease);
          if (beat.status() != LeaseStatus.OK) {
            return; // cancelled or no longer ours
          }
        }
      }
      if (dead) {
        return;
      }
      String error = behaviour.failure(claim.job().spec());
      if (error != null) {
        queue.fail(lease, Failure.permanent(error));
      } else {
        double seconds = (System.nanoTime() - start) / 1e9;
        queue.complete(lease, ResultPayload.ofText(String.format(Locale.ROOT, "{\"seconds\":%.3f}", seconds)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (!dead) {
        System.err.println("collector " + host.name() + ", job " + claim.job().id() + ": " + e.getMessage());
      }
    } finally {
      running.decrementAndGet();
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

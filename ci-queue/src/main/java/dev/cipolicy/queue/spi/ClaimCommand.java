package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import java.time.Duration;

/**
 * The arguments of {@link QueueStore#claim}: who claims, for how long (on the store's clock), under which affinity timeout
 * and crash-rescue budget, and at most how many jobs.
 *
 * @param collector the claiming collector's name; it claims jobs of its registered tag
 * @param leaseDuration how long each lease lasts unless renewed
 * @param collectorTimeout the heartbeat age after which a collector is gone: its requeued jobs lose their
 *     affinity to it
 * @param maxCrashRescues the crash-rescue budget applied to expired leases found on the way
 * @param limit the most jobs to claim, at least 1
 */
public record ClaimCommand(String collector, Duration leaseDuration, Duration collectorTimeout,
    int maxCrashRescues, int limit) {

  /** Checks the components. */
  public ClaimCommand {
    Checks.token(collector, "collector name");
    Checks.positive(leaseDuration, "lease duration");
    Checks.positive(collectorTimeout, "collector timeout");
    Checks.atLeast(maxCrashRescues, 0, "crash-rescue budget");
    Checks.atLeast(limit, 1, "claim limit");
  }
}

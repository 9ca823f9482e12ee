package dev.cipolicy.queue;

import dev.cipolicy.queue.model.Collector;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * A collector as the status page shows it: online, offline (heartbeat older than the collector timeout)
 * or inactive, with the age of its last heartbeat.
 *
 * @param collector the collector
 * @param state online, offline or inactive
 * @param heartbeatAge the time since its last heartbeat (zero if the heartbeat is in the future)
 */
public record CollectorStatus(Collector collector, State state, Duration heartbeatAge) {

  /** Whether a collector is working. */
  public enum State {
    /** Active with a recent heartbeat. */
    ONLINE,
    /** Active but its heartbeat is older than the collector timeout. */
    OFFLINE,
    /** Deactivated; it claims nothing. */
    INACTIVE;

    /**
     * The name used in text and JSON output.
     *
     * @return e.g. {@code offline}
     */
    public String documentName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The status of a collector at {@code now}.
   *
   * @param collector the collector
   * @param now the instant
   * @param timeout the heartbeat age after which it is offline
   * @return the status
   */
  public static CollectorStatus of(Collector collector, Instant now, Duration timeout) {
    Duration age = Duration.between(collector.lastHeartbeatAt(), now);
    if (age.isNegative()) {
      age = Duration.ZERO;
    }
    State state = !collector.active() ? State.INACTIVE
        : collector.isLiveAt(now, timeout) ? State.ONLINE : State.OFFLINE;
    return new CollectorStatus(collector, state, age);
  }
}

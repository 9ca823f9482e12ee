package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.time.Duration;
import java.time.Instant;

/**
 * A registered collector: a machine that claims and runs the jobs of its tag. Collectors sharing a tag
 * form a pool. Only active collectors claim; a collector is live while active and its last heartbeat is
 * younger than the configured age.
 *
 * @param name the unique name, e.g. {@code kunpeng-920b}
 * @param tag the tag of the jobs it runs, e.g. {@code aarch64}
 * @param active whether it may claim jobs
 * @param registeredAt when it was registered
 * @param lastHeartbeatAt its last sign of life: a registration, heartbeat, claim or job update
 * @param devices the GPU devices it advertised when it registered; none for a CPU-only collector
 */
public record Collector(String name, String tag, boolean active, Instant registeredAt, Instant lastHeartbeatAt,
    Devices devices) {

  /** Checks the components. */
  public Collector {
    Checks.token(name, "collector name");
    Checks.token(tag, "collector tag");
    Checks.present(registeredAt, "collector registration instant");
    Checks.present(lastHeartbeatAt, "collector heartbeat instant");
    Checks.present(devices, "collector devices");
  }

  /**
   * A collector without devices.
   *
   * @param name the unique name
   * @param tag the tag of the jobs it runs
   * @param active whether it may claim jobs
   * @param registeredAt when it was registered
   * @param lastHeartbeatAt its last sign of life
   */
  public Collector(String name, String tag, boolean active, Instant registeredAt, Instant lastHeartbeatAt) {
    this(name, tag, active, registeredAt, lastHeartbeatAt, Devices.none());
  }

  /**
   * Whether the collector is live: active, and its last heartbeat younger than {@code maxAge} at
   * {@code now}.
   *
   * @param now the instant
   * @param maxAge the heartbeat age after which it counts as gone
   * @return true when live
   */
  public boolean isLiveAt(Instant now, Duration maxAge) {
    return active && now.isBefore(lastHeartbeatAt.plus(maxAge));
  }

  /**
   * The same collector with a newer heartbeat.
   *
   * @param now the heartbeat instant
   * @return the collector, with {@code lastHeartbeatAt} the later of the two instants
   */
  public Collector heartbeatAt(Instant now) {
    return now.isAfter(lastHeartbeatAt) ? new Collector(name, tag, active, registeredAt, now, devices) : this;
  }

  /**
   * The same collector, activated or deactivated.
   *
   * @param newActive the new flag
   * @return the collector
   */
  public Collector withActive(boolean newActive) {
    return new Collector(name, tag, newActive, registeredAt, lastHeartbeatAt, devices);
  }
}

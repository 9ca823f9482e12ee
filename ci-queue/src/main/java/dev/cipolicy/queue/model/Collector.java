package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

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
 * <p>Its inventory can change (the rule is {@link dev.cipolicy.queue.spi.CollectorRegistration}): {@code devices} is the inventory the
 * store has taken, and {@code pendingDevices} one it was registered with again but has not taken yet, because a
 * live lease still holds a device that it removes. While one is pending, claims use only the devices in both
 * ({@link #usableDevices()}). A retiring collector claims nothing more and is gone once it holds no live lease.
 *
 * @param name the unique name, e.g. {@code kunpeng-920b}
 * @param tag the tag of the jobs it runs, e.g. {@code aarch64}
 * @param active whether it may claim jobs; false while retiring
 * @param registeredAt when it was registered
 * @param lastHeartbeatAt its last sign of life: a registration, heartbeat, claim or job update
 * @param devices the GPU devices the store has taken as its inventory; none for a CPU-only collector
 * @param pendingDevices the inventory it registered with that the store has not taken yet, if any; it removes at
 *     least one device of {@code devices}
 * @param retiring whether an operator retired it while it held live leases
 */
public record Collector(String name, String tag, boolean active, Instant registeredAt, Instant lastHeartbeatAt,
    Devices devices, Optional<Devices> pendingDevices, boolean retiring) {

  /** Checks the components. */
  public Collector {
    Checks.token(name, "collector name");
    Checks.token(tag, "collector tag");
    Checks.present(registeredAt, "collector registration instant");
    Checks.present(lastHeartbeatAt, "collector heartbeat instant");
    Checks.present(devices, "collector devices");
    Checks.present(pendingDevices, "collector pending devices");
    if (pendingDevices.isPresent() && pendingDevices.get().indices().containsAll(devices.indices())) {
      throw new InvalidQueueInputException("collector " + name + " has pending devices " + pendingDevices.get()
          .indices() + " that remove none of its devices " + devices.indices() + "; expected a pending inventory only"
          + " while it removes a device");
    }
    if (retiring && active) {
      throw new InvalidQueueInputException("collector " + name + " is retiring and active; expected a retiring"
          + " collector to be inactive");
    }
  }

  /**
   * A collector with an inventory taken and none pending, not retiring.
   *
   * @param name the unique name
   * @param tag the tag of the jobs it runs
   * @param active whether it may claim jobs
   * @param registeredAt when it was registered
   * @param lastHeartbeatAt its last sign of life
   * @param devices its devices
   */
  public Collector(String name, String tag, boolean active, Instant registeredAt, Instant lastHeartbeatAt,
      Devices devices) {
    this(name, tag, active, registeredAt, lastHeartbeatAt, devices, Optional.empty(), false);
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
    return now.isAfter(lastHeartbeatAt)
        ? new Collector(name, tag, active, registeredAt, now, devices, pendingDevices, retiring) : this;
  }

  /**
   * The same collector, activated or deactivated.
   *
   * @param newActive the new flag
   * @return the collector
   */
  public Collector withActive(boolean newActive) {
    return new Collector(name, tag, newActive, registeredAt, lastHeartbeatAt, devices, pendingDevices, retiring);
  }

  /**
   * The same collector with another inventory state.
   *
   * @param taken the inventory the store has taken
   * @param pending the inventory registered but not taken yet, if any
   * @return the collector
   */
  public Collector withInventory(Devices taken, Optional<Devices> pending) {
    return new Collector(name, tag, active, registeredAt, lastHeartbeatAt, taken, pending, retiring);
  }

  /**
   * The same collector, retiring: inactive, claiming nothing more.
   *
   * @return the collector
   */
  public Collector asRetiring() {
    return new Collector(name, tag, false, registeredAt, lastHeartbeatAt, devices, pendingDevices, true);
  }

  /**
   * The devices a claim may place a job on: its inventory, or, while another is pending, the devices in both
   * (grouped as in the taken inventory), so that no new lease lands on a device the pending inventory removes
   * and no device it adds is used before it is taken.
   *
   * @return the usable devices
   */
  public Devices usableDevices() {
    return usable(devices, pendingDevices);
  }

  /**
   * The devices a claim may place a job on, for a taken and a pending inventory ({@link #usableDevices()}).
   *
   * @param taken the inventory taken
   * @param pending the inventory pending, if any
   * @return the usable devices
   */
  public static Devices usable(Devices taken, Optional<Devices> pending) {
    return pending.map(taken::keepOnly).orElse(taken);
  }
}

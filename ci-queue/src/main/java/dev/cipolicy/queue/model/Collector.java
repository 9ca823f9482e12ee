package dev.cipolicy.queue.model;

import dev.cipolicy.api.value.ValueStyle;
import dev.cipolicy.queue.model.Checks;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * A registered collector: a machine that claims and runs the jobs of its tag. Collectors sharing a tag
 * form a pool. Only active collectors claim; a collector is live while active and its last heartbeat is
 * younger than the configured age.
 *
 * <p>Its inventory can change (the rule is {@link dev.cipolicy.queue.spi.CollectorRegistration}): {@link #devices()}
 * is the inventory the store has taken, and {@link #pendingDevices()} one it was registered with again but has not
 * taken yet, because a live lease still holds a device that it removes. While one is pending, claims use only the
 * devices in both ({@link #usableDevices()}). A retiring collector claims nothing more and is gone once it holds no
 * live lease.
 *
 * <p>A store builds one ({@link #builder()}: name, tag, active and both instants required; no devices, none
 * pending and not retiring by default); a host only reads it.
 */
@Value.Immutable
@ValueStyle
public abstract class Collector {

  /**
   * The unique name.
   *
   * @return e.g. {@code kunpeng-920b}
   */
  public abstract String name();

  /**
   * The tag of the jobs it runs, the pool of its devices.
   *
   * @return e.g. {@code aarch64}
   */
  public abstract String tag();

  /**
   * Whether it may claim jobs; false while retiring.
   *
   * @return the flag
   */
  public abstract boolean active();

  /**
   * When it was registered.
   *
   * @return the instant
   */
  public abstract Instant registeredAt();

  /**
   * Its last sign of life: a registration, heartbeat, claim or job update.
   *
   * @return the instant
   */
  public abstract Instant lastHeartbeatAt();

  /**
   * The GPU devices the store has taken as its inventory.
   *
   * @return the devices; none (the default) for a CPU-only collector
   */
  @Value.Default
  public Devices devices() {
    return Devices.none();
  }

  /**
   * The inventory it registered with that the store has not taken yet; it removes at least one device of
   * {@link #devices()}.
   *
   * @return the pending inventory; empty by default
   */
  public abstract Optional<Devices> pendingDevices();

  /**
   * Whether an operator retired it while it held live leases.
   *
   * @return false by default
   */
  @Value.Default
  public boolean retiring() {
    return false;
  }

  /**
   * Checks the fields.
   *
   * @throws InvalidQueueInputException naming the field
   */
  @Value.Check
  protected void check() {
    Checks.token(name(), "collector name");
    Checks.token(tag(), "collector tag");
    Optional<Devices> pending = pendingDevices();
    if (pending.isPresent() && pending.get().indices().containsAll(devices().indices())) {
      throw new InvalidQueueInputException("collector " + name() + " has pending devices " + pending.get()
          .indices() + " that remove none of its devices " + devices().indices() + "; expected a pending inventory"
          + " only while it removes a device");
    }
    if (retiring() && active()) {
      throw new InvalidQueueInputException("collector " + name() + " is retiring and active; expected a retiring"
          + " collector to be inactive");
    }
  }

  /**
   * A builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Collector}; {@link #build()} checks it. */
  public static final class Builder extends ImmutableCollector.Builder {
    /** An empty builder. */
    Builder() {}
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
    return active() && now.isBefore(lastHeartbeatAt().plus(maxAge));
  }

  /**
   * The same collector with a newer heartbeat.
   *
   * @param now the heartbeat instant
   * @return the collector, with {@code lastHeartbeatAt} the later of the two instants
   */
  public Collector heartbeatAt(Instant now) {
    return now.isAfter(lastHeartbeatAt()) ? builder().from(this).lastHeartbeatAt(now).build() : this;
  }

  /**
   * The same collector, activated or deactivated.
   *
   * @param newActive the new flag
   * @return the collector
   */
  public Collector withActive(boolean newActive) {
    return builder().from(this).active(newActive).build();
  }

  /**
   * The same collector with another inventory state.
   *
   * @param taken the inventory the store has taken
   * @param pending the inventory registered but not taken yet, if any
   * @return the collector
   */
  public Collector withInventory(Devices taken, Optional<Devices> pending) {
    return builder().from(this).devices(taken).pendingDevices(pending).build();
  }

  /**
   * The same collector, retiring: inactive, claiming nothing more.
   *
   * @return the collector
   */
  public Collector asRetiring() {
    return builder().from(this).active(false).retiring(true).build();
  }

  /**
   * The devices a claim may place a job on: its inventory, or, while another is pending, the devices in both
   * (grouped as in the taken inventory), so that no new lease lands on a device the pending inventory removes
   * and no device it adds is used before it is taken.
   *
   * @return the usable devices
   */
  public Devices usableDevices() {
    return usable(devices(), pendingDevices());
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

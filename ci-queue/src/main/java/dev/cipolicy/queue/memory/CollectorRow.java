package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The in-memory row of one collector, mutable so that the frequent heartbeats allocate nothing. */
final class CollectorRow {
  final String name;
  final String tag;
  final Instant registeredAt;
  /** The inventory taken. */
  Devices devices;
  /** The inventory registered but not taken yet, if any. */
  Optional<Devices> pending = Optional.empty();
  /** What claims may place on: {@link Collector#usableDevices()}. */
  Devices usable;
  /** The live leases on its devices, by job id (an expired one stays until it is processed). */
  final TreeMap<Long, JobRow> holdings = new TreeMap<>();
  boolean active;
  boolean retiring;
  Instant lastHeartbeatAt;

  CollectorRow(String name, String tag, boolean active, Instant now, Devices devices) {
    this.name = name;
    this.devices = devices;
    this.usable = devices;
    this.tag = tag;
    this.active = active;
    this.registeredAt = now;
    this.lastHeartbeatAt = now;
  }

  void heartbeat(Instant now) {
    if (now.isAfter(lastHeartbeatAt)) {
      lastHeartbeatAt = now;
    }
  }

  boolean isLiveAt(Instant now, Duration timeout) {
    return active && now.isBefore(lastHeartbeatAt.plus(timeout));
  }

  /** The devices its leases that are live at {@code now} hold. */
  Set<Integer> liveHeld(Instant now) {
    Set<Integer> held = new TreeSet<>();
    for (JobRow row : holdings.values()) {
      if (row.leaseExpiry.isAfter(now)) {
        held.addAll(row.job.lease().orElseThrow().devices());
      }
    }
    return held;
  }

  /** Takes the inventory state, active flag and retiring mark of {@code next} (same name, tag, registration). */
  void set(Collector next) {
    devices = next.devices();
    pending = next.pendingDevices();
    usable = next.usableDevices();
    active = next.active();
    retiring = next.retiring();
  }

  Collector toCollector() {
    return Collector.builder().name(name).tag(tag).active(active).registeredAt(registeredAt)
        .lastHeartbeatAt(lastHeartbeatAt).devices(devices).pendingDevices(pending).retiring(retiring).build();
  }
}

package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import java.time.Duration;
import java.time.Instant;
import java.util.TreeMap;

/** The in-memory row of one collector, mutable so that the frequent heartbeats allocate nothing. */
final class CollectorRow {
  final String name;
  final String tag;
  final Instant registeredAt;
  final Devices devices;
  /** The live leases on its devices, by job id. */
  final TreeMap<Long, JobRow> holdings = new TreeMap<>();
  boolean active;
  Instant lastHeartbeatAt;

  CollectorRow(String name, String tag, boolean active, Instant now, Devices devices) {
    this.name = name;
    this.devices = devices;
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

  Collector toCollector() {
    return new Collector(name, tag, active, registeredAt, lastHeartbeatAt, devices);
  }
}

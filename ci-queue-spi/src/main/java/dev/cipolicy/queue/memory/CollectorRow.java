package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.spi.Collector;
import java.time.Duration;
import java.time.Instant;

/** The in-memory row of one collector, mutable so that the frequent heartbeats allocate nothing. */
final class CollectorRow {
  final String name;
  final String tag;
  final Instant registeredAt;
  boolean active;
  Instant lastHeartbeatAt;

  CollectorRow(String name, String tag, boolean active, Instant now) {
    this.name = name;
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
    return new Collector(name, tag, active, registeredAt, lastHeartbeatAt);
  }
}

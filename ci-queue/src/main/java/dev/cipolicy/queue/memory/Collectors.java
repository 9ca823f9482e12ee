package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.RegisterResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The collectors of {@link InMemoryQueueStore} by name, and what registration, heartbeats and activation do to
 * them. Not thread-safe: the store calls it under its lock.
 */
final class Collectors {

  final Map<String, CollectorRow> byName = new HashMap<>();

  @Nullable CollectorRow get(String name) {
    return byName.get(name);
  }

  /** Registers a collector; a collector with devices joins its pool's hosts. */
  RegisterResult register(String name, String tag, boolean active, Devices devices, Instant now,
      Function<String, Pool> pool) {
    CollectorRow existing = byName.get(name);
    if (existing != null) {
      return new RegisterResult(existing.tag.equals(tag) ? RegisterResult.Status.ALREADY_REGISTERED
          : RegisterResult.Status.NAME_TAKEN, existing.toCollector());
    }
    CollectorRow row = new CollectorRow(name, tag, active, now, devices);
    byName.put(name, row);
    if (!devices.isEmpty()) {
      pool.apply(tag).hosts.put(name, row);
    }
    return new RegisterResult(RegisterResult.Status.REGISTERED, row.toCollector());
  }

  CollectorResult heartbeat(String name, Instant now) {
    CollectorRow row = byName.get(name);
    if (row == null) {
      return new CollectorResult(CollectorResult.Status.NOT_FOUND, Optional.empty());
    }
    row.heartbeat(now);
    return new CollectorResult(CollectorResult.Status.OK, Optional.of(row.toCollector()));
  }

  CollectorResult setActive(String name, boolean active) {
    CollectorRow row = byName.get(name);
    if (row == null) {
      return new CollectorResult(CollectorResult.Status.NOT_FOUND, Optional.empty());
    }
    if (row.active == active) {
      return new CollectorResult(CollectorResult.Status.UNCHANGED, Optional.of(row.toCollector()));
    }
    row.active = active;
    return new CollectorResult(CollectorResult.Status.OK, Optional.of(row.toCollector()));
  }

  Optional<Collector> collector(String name) {
    CollectorRow row = byName.get(name);
    return row == null ? Optional.empty() : Optional.of(row.toCollector());
  }

  List<Collector> all() {
    List<Collector> out = new ArrayList<>(byName.size());
    for (CollectorRow row : byName.values()) {
      out.add(row.toCollector());
    }
    out.sort(Comparator.comparing(Collector::name));
    return out;
  }

  /** The names of the live collectors of a tag. */
  List<String> live(String tag, Instant now, Duration timeout) {
    List<String> out = new ArrayList<>();
    for (CollectorRow c : byName.values()) {
      if (c.tag.equals(tag) && c.isLiveAt(now, timeout)) {
        out.add(c.name);
      }
    }
    return out;
  }
}

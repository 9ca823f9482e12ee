package dev.cipolicy.queue.memory;

import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.spi.CollectorRegistration;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.RetireResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The collectors of {@link InMemoryQueueStore} by name, and what registration, inventory changes, retirement,
 * heartbeats and activation do to them, by the rules of {@link CollectorRegistration}. A retired collector's row
 * stays (marked retiring) and is left out of every read once it holds no live lease. Not thread-safe: the store
 * calls it under its lock.
 */
final class Collectors {

  final Map<String, CollectorRow> byName = new HashMap<>();
  private final Map<String, Pool> pools;

  Collectors(Map<String, Pool> pools) {
    this.pools = pools;
  }

  /** The row of a listed collector (a retired one that holds no live lease is not), or null. */
  @Nullable CollectorRow get(String name, Instant now) {
    CollectorRow row = byName.get(name);
    return row == null || !CollectorRegistration.listed(row.toCollector(), row.retiring && holdsLiveLease(name, now))
        ? null : row;
  }

  /** The row of a collector, listed or not, or null (for refreshing a lease holder's heartbeat). */
  @Nullable CollectorRow row(String name) {
    return byName.get(name);
  }

  /** Registers a collector, or changes its inventory; a collector with devices is one of its pool's hosts. */
  RegisterResult register(String name, String tag, boolean active, Devices devices, Instant now) {
    CollectorRow existing = byName.get(name);
    CollectorRegistration.Decision d = CollectorRegistration.register(existing == null ? null
        : existing.toCollector(), name, tag, active, devices, now,
        existing != null && existing.retiring && holdsLiveLease(name, now),
        existing == null ? List.of() : existing.liveHeld(now));
    CollectorRow row;
    if (d.fresh() || existing == null) {
      if (existing != null) {
        leavePool(existing);
      }
      row = new CollectorRow(name, tag, active, now, devices);
      byName.put(name, row);
    } else if (d.next().isPresent()) {
      row = existing;
      row.set(d.next().get());
    } else {
      return new RegisterResult(d.status(), existing.toCollector());
    }
    joinPool(row);
    return new RegisterResult(d.status(), row.toCollector());
  }

  /** Takes the claimer's pending inventory when no live lease holds a device it removes. */
  void takeAtClaim(CollectorRow row, Instant now) {
    if (row.pending.isPresent()) {
      Optional<Collector> next = CollectorRegistration.takeAtClaim(row.toCollector(), row.liveHeld(now));
      if (next.isPresent()) {
        row.set(next.get());
        joinPool(row);
      }
    }
  }

  RetireResult retire(String name, Instant now) {
    CollectorRow row = byName.get(name);
    RetireResult result = CollectorRegistration.retire(row == null ? null : row.toCollector(),
        row != null && holdsLiveLease(name, now));
    if (row != null && result.status() != RetireResult.Status.NOT_FOUND) {
      row.set(row.toCollector().asRetiring());
    }
    return result;
  }

  CollectorResult heartbeat(String name, Instant now) {
    CollectorRow row = get(name, now);
    if (row == null) {
      return new CollectorResult(CollectorResult.Status.NOT_FOUND, Optional.empty());
    }
    row.heartbeat(now);
    return new CollectorResult(CollectorResult.Status.OK, Optional.of(row.toCollector()));
  }

  CollectorResult setActive(String name, boolean active, Instant now) {
    CollectorRow row = get(name, now);
    if (row == null) {
      return new CollectorResult(CollectorResult.Status.NOT_FOUND, Optional.empty());
    }
    if (row.retiring) {
      return new CollectorResult(CollectorResult.Status.RETIRING, Optional.of(row.toCollector()));
    }
    if (row.active == active) {
      return new CollectorResult(CollectorResult.Status.UNCHANGED, Optional.of(row.toCollector()));
    }
    row.active = active;
    return new CollectorResult(CollectorResult.Status.OK, Optional.of(row.toCollector()));
  }

  Optional<Collector> collector(String name, Instant now) {
    CollectorRow row = get(name, now);
    return row == null ? Optional.empty() : Optional.of(row.toCollector());
  }

  List<Collector> all(Instant now) {
    List<Collector> out = new ArrayList<>(byName.size());
    for (CollectorRow row : byName.values()) {
      if (get(row.name, now) != null) {
        out.add(row.toCollector());
      }
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

  /** Whether some live lease, of any pool, is held by the collector. */
  private boolean holdsLiveLease(String name, Instant now) {
    for (Pool pool : pools.values()) {
      if (pool.leases.anyLiveHeldBy(name, now)) {
        return true;
      }
    }
    return false;
  }

  /** Makes a row one of its pool's hosts while it has devices taken, and no host otherwise. */
  private void joinPool(CollectorRow row) {
    if (row.devices.isEmpty()) {
      leavePool(row);
    } else {
      pools.computeIfAbsent(row.tag, Pool::new).hosts.put(row.name, row);
    }
  }

  private void leavePool(CollectorRow row) {
    Pool pool = pools.get(row.tag);
    if (pool != null && pool.hosts.get(row.name) == row) {
      pool.hosts.remove(row.name);
    }
  }
}

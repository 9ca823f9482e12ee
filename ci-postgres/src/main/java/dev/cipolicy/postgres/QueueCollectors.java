package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.spi.CollectorRegistration;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.RetireResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The collectors of {@link PostgresQueueStore}: registration and inventory changes, retirement (by the rules of
 * {@link CollectorRegistration}), heartbeats (which only move forward), activation, reads, and the tag of each
 * collector as claims learn it. A retired collector's row stays, marked retiring, and reads leave it out once it
 * holds no live lease.
 */
final class QueueCollectors {

  private final QueueContext ctx;
  private final QueueSql sql;
  /**
   * Collector name to tag, learnt by claims and registrations. A collector's tag changes only when a retired one's
   * name is registered again, so the claim fast path can name the tag as a parameter (which lets the planner use
   * the claim indexes); the statement still checks it against the row and falls back to the full path when they
   * differ.
   */
  private final ConcurrentHashMap<String, String> tags = new ConcurrentHashMap<>();

  QueueCollectors(QueueContext ctx) {
    this.ctx = ctx;
    this.sql = ctx.sql;
  }

  /** The tag this store has seen the collector with, if any. */
  @Nullable String knownTag(String collector) {
    return tags.get(collector);
  }

  /** Remembers a collector's tag as read from its row. */
  void learnTag(String collector, String tag) {
    tags.put(collector, tag);
  }

  RegisterResult register(String name, String tag, boolean active, Devices devices) {
    return ctx.tx.inTransaction("registerCollector", c -> {
      Instant now = ctx.now(c);
      Optional<Collector> existing = lock(c, name);
      if (existing.isEmpty()) {
        Collector fresh = Collector.builder().name(name).tag(tag).active(active).registeredAt(now)
            .lastHeartbeatAt(now).devices(devices).build();
        try (PreparedStatement st = c.prepareStatement(sql.insertCollector)) {
          st.setString(1, name);
          st.setString(2, tag);
          st.setBoolean(3, active);
          setInstant(st, 4, now);
          setInstant(st, 5, now);
          st.setArray(6, c.createArrayOf("int4", devices.indices().toArray()));
          st.setArray(7, c.createArrayOf("int4", QueueRows.groupOrdinals(devices).toArray()));
          if (st.executeUpdate() != 1) {
            throw PgTransactions.rerun(); // registered meanwhile: decide again on its row
          }
        }
        listDevices(c, name, devices);
        tags.put(name, tag);
        return new RegisterResult(RegisterResult.Status.REGISTERED, fresh);
      }
      Collector old = existing.get();
      lockPool(c, old.tag());
      CollectorRegistration.Decision d = CollectorRegistration.register(old, name, tag, active, devices, now,
          old.retiring() && holdsLiveLease(c, name, now), liveHeld(c, name, now));
      if (d.next().isEmpty()) {
        tags.put(name, old.tag());
        return new RegisterResult(d.status(), old);
      }
      Collector next = d.next().get();
      if (d.fresh()) {
        try (PreparedStatement st = c.prepareStatement(sql.replaceCollector)) {
          st.setString(1, tag);
          st.setBoolean(2, active);
          setInstant(st, 3, now);
          setInstant(st, 4, now);
          st.setArray(5, c.createArrayOf("int4", devices.indices().toArray()));
          st.setArray(6, c.createArrayOf("int4", QueueRows.groupOrdinals(devices).toArray()));
          st.setString(7, name);
          st.executeUpdate();
        }
        listDevices(c, name, devices);
      } else {
        writeInventory(c, next);
      }
      tags.put(name, next.tag());
      return new RegisterResult(d.status(), next);
    });
  }

  /**
   * Takes the claimer's pending inventory, in its claim's transaction after the pool's expired leases were
   * processed, when no live lease holds a device it removes.
   *
   * @return whether the collector has devices taken afterwards
   */
  boolean takeAtClaim(Connection c, String name, Instant now) throws SQLException {
    Collector row;
    try (PreparedStatement st = c.prepareStatement(sql.lockCollectorForInventory)) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        row = rs.next() ? ctx.rows.collector(rs) : null;
      }
    }
    if (row == null) {
      throw PgTransactions.rerun();
    }
    Optional<Collector> next = CollectorRegistration.takeAtClaim(row, liveHeld(c, name, now));
    if (next.isPresent()) {
      writeInventory(c, next.get());
      return !next.get().devices().isEmpty();
    }
    return !row.devices().isEmpty();
  }

  RetireResult retire(String name) {
    return ctx.tx.inTransaction("retireCollector", c -> {
      Instant now = ctx.now(c);
      Optional<Collector> row = lock(c, name);
      if (row.isPresent()) {
        lockPool(c, row.get().tag());
      }
      RetireResult result = CollectorRegistration.retire(row.orElse(null), row.isPresent()
          && holdsLiveLease(c, name, now));
      if (result.status() != RetireResult.Status.NOT_FOUND) {
        try (PreparedStatement st = c.prepareStatement(sql.retireCollector)) {
          st.setString(1, name);
          st.executeUpdate();
        }
      }
      return result;
    });
  }

  CollectorResult heartbeat(String name) {
    return ctx.tx.inTransaction("collectorHeartbeat", c -> {
      Instant now = ctx.now(c);
      if (load(c, name, now).isEmpty()) {
        return new CollectorResult(CollectorResult.Status.NOT_FOUND, Optional.empty());
      }
      touch(c, name, now);
      return new CollectorResult(CollectorResult.Status.OK, load(c, name, now));
    });
  }

  CollectorResult setActive(String name, boolean active) {
    return ctx.tx.inTransaction("setCollectorActive", c -> {
      Instant now = ctx.now(c);
      Optional<Collector> before = load(c, name, now);
      if (before.isEmpty()) {
        return new CollectorResult(CollectorResult.Status.NOT_FOUND, before);
      }
      if (before.get().retiring()) {
        return new CollectorResult(CollectorResult.Status.RETIRING, before);
      }
      try (PreparedStatement st = c.prepareStatement(sql.setCollectorActive)) {
        st.setBoolean(1, active);
        st.setString(2, name);
        st.setBoolean(3, active);
        int changed = st.executeUpdate();
        Optional<Collector> row = load(c, name, now);
        if (row.isEmpty()) {
          return new CollectorResult(CollectorResult.Status.NOT_FOUND, row);
        }
        return new CollectorResult(changed == 1 ? CollectorResult.Status.OK : CollectorResult.Status.UNCHANGED, row);
      }
    });
  }

  Optional<Collector> collector(String name) {
    return ctx.tx.inTransaction("collector", c -> load(c, name, ctx.now(c)));
  }

  List<Collector> collectors() {
    return ctx.tx.inTransaction("collectors", c -> {
      List<Collector> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(sql.allCollectors)) {
        setInstant(st, 1, ctx.now(c));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            out.add(ctx.rows.collector(rs));
          }
        }
      }
      out.sort(Comparator.comparing(Collector::name));
      return out;
    });
  }

  /** Moves a collector's heartbeat forward to {@code now} (never backward). */
  void touch(Connection c, String name, Instant now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.touchCollector)) {
      setInstant(st, 1, now);
      st.setString(2, name);
      setInstant(st, 3, now);
      st.executeUpdate();
    }
  }

  /** The collector unless it retired and holds no live lease. */
  private Optional<Collector> load(Connection c, String name, Instant now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.collectorByName)) {
      st.setString(1, name);
      setInstant(st, 2, now);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(ctx.rows.collector(rs)) : Optional.empty();
      }
    }
  }

  /** The collector's row, retired or not, locked for update. */
  private Optional<Collector> lock(Connection c, String name) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.lockCollector)) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(ctx.rows.collector(rs)) : Optional.empty();
      }
    }
  }

  /** Takes the pool's claim lock, so that no GPU claim of the pool places on the collector meanwhile. */
  private void lockPool(Connection c, String tag) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.lockGpuPool)) {
      st.setString(1, sql.jobs + " gpu " + tag);
      st.execute();
    }
  }

  private boolean holdsLiveLease(Connection c, String name, Instant now) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.holdsLiveLease)) {
      st.setString(1, name);
      setInstant(st, 2, now);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private Set<Integer> liveHeld(Connection c, String name, Instant now) throws SQLException {
    Set<Integer> held = new HashSet<>();
    try (PreparedStatement st = c.prepareStatement(sql.liveHeldDevices)) {
      st.setString(1, name);
      setInstant(st, 2, now);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          held.add(rs.getInt(1));
        }
      }
    }
    return held;
  }

  /** Writes a collector's inventory state and lists its taken devices. */
  private void writeInventory(Connection c, Collector next) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.setCollectorInventory)) {
      st.setArray(1, c.createArrayOf("int4", next.devices().indices().toArray()));
      st.setArray(2, c.createArrayOf("int4", QueueRows.groupOrdinals(next.devices()).toArray()));
      Devices pending = next.pendingDevices().orElse(null);
      st.setArray(3, pending == null ? null : c.createArrayOf("int4", pending.indices().toArray()));
      st.setArray(4, pending == null ? null : c.createArrayOf("int4", QueueRows.groupOrdinals(pending).toArray()));
      st.setString(5, next.name());
      st.executeUpdate();
    }
    listDevices(c, next.name(), next.devices());
  }

  /**
   * Makes {@code devices} the listed devices of the collector: the others are unlisted unless a lease row still
   * holds them (an expired lease not processed yet; the foreign key keeps them listed until it is).
   */
  private void listDevices(Connection c, String name, Devices devices) throws SQLException {
    Object[] indices = devices.indices().toArray();
    try (PreparedStatement st = c.prepareStatement(sql.unlistCollectorDevices)) {
      st.setString(1, name);
      st.setArray(2, c.createArrayOf("int4", indices));
      st.executeUpdate();
    }
    if (indices.length > 0) {
      try (PreparedStatement dev = c.prepareStatement(sql.insertCollectorDevices)) {
        dev.setString(1, name);
        dev.setArray(2, c.createArrayOf("int4", indices));
        dev.executeUpdate();
      }
    }
  }
}

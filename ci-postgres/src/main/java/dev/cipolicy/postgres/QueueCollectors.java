package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.RegisterResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The collectors of {@link PostgresQueueStore}: registration, heartbeats (which only move forward),
 * activation, reads, and the tag of each collector as claims learn it.
 */
final class QueueCollectors {

  private final QueueContext ctx;
  private final QueueSql sql;
  /**
   * Collector name to tag, learnt by claims and registrations. A registered collector's tag never changes, so
   * the claim fast path can name the tag as a parameter (which lets the planner use the claim indexes); the
   * statement still checks it against the row and falls back to the full path when they differ.
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
      Collector fresh = new Collector(name, tag, active, now, now, devices);
      try (PreparedStatement st = c.prepareStatement(sql.insertCollector)) {
        st.setString(1, name);
        st.setString(2, tag);
        st.setBoolean(3, active);
        setInstant(st, 4, now);
        setInstant(st, 5, now);
        st.setArray(6, c.createArrayOf("int4", devices.indices().toArray()));
        st.setArray(7, c.createArrayOf("int4", QueueRows.groupOrdinals(devices).toArray()));
        if (st.executeUpdate() == 1) {
          if (!devices.isEmpty()) {
            try (PreparedStatement dev = c.prepareStatement(sql.insertCollectorDevices)) {
              dev.setString(1, name);
              dev.setArray(2, c.createArrayOf("int4", devices.indices().toArray()));
              dev.executeUpdate();
            }
          }
          tags.put(name, tag);
          return new RegisterResult(RegisterResult.Status.REGISTERED, fresh);
        }
      }
      Collector existing = load(c, name).orElseThrow(PgTransactions::rerun);
      tags.put(name, existing.tag());
      return new RegisterResult(existing.tag().equals(tag) ? RegisterResult.Status.ALREADY_REGISTERED
          : RegisterResult.Status.NAME_TAKEN, existing);
    });
  }

  CollectorResult heartbeat(String name) {
    return ctx.tx.inTransaction("collectorHeartbeat", c -> {
      touch(c, name, ctx.now(c));
      Optional<Collector> row = load(c, name);
      return new CollectorResult(row.isPresent() ? CollectorResult.Status.OK : CollectorResult.Status.NOT_FOUND, row);
    });
  }

  CollectorResult setActive(String name, boolean active) {
    return ctx.tx.inTransaction("setCollectorActive", c -> {
      try (PreparedStatement st = c.prepareStatement(sql.setCollectorActive)) {
        st.setBoolean(1, active);
        st.setString(2, name);
        st.setBoolean(3, active);
        int changed = st.executeUpdate();
        Optional<Collector> row = load(c, name);
        if (row.isEmpty()) {
          return new CollectorResult(CollectorResult.Status.NOT_FOUND, row);
        }
        return new CollectorResult(changed == 1 ? CollectorResult.Status.OK : CollectorResult.Status.UNCHANGED, row);
      }
    });
  }

  Optional<Collector> collector(String name) {
    return ctx.tx.inTransaction("collector", c -> load(c, name));
  }

  List<Collector> collectors() {
    return ctx.tx.inTransaction("collectors", c -> {
      List<Collector> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(sql.allCollectors); ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(ctx.rows.collector(rs));
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

  private Optional<Collector> load(Connection c, String name) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.collectorByName)) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(ctx.rows.collector(rs)) : Optional.empty();
      }
    }
  }
}

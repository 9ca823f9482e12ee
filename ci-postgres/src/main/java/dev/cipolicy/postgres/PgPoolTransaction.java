package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolTransaction;
import dev.cipolicy.queue.placement.ShareLedger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One claim's access to a pool of {@link PostgresQueueStore}, on the claim's connection and inside its
 * transaction, with the pool's advisory lock held. Every read runs a statement of {@link QueueSql}; a lease
 * whose job a concurrent cancellation took throws {@link PgTransactions#rerun()}, so the claim runs again.
 * A {@link SQLException} travels through the claimer as a {@link Failed} that {@link QueueClaims} unwraps.
 */
final class PgPoolTransaction implements PoolTransaction {

  /** A {@link SQLException} of a read or write of this transaction, unwrapped by the caller of the claimer. */
  static final class Failed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failed(SQLException cause) {
      super(cause.getMessage(), cause, false, false);
    }

    /** The SQL exception. */
    SQLException sql() {
      return (SQLException) Objects.requireNonNull(getCause());
    }
  }

  private final QueueContext ctx;
  private final QueueJobs jobs;
  private final Connection c;
  private final String tag;
  private final String claimer;
  private final Instant now;
  private final Duration collectorTimeout;
  private final FleetShares shares;
  private @Nullable ShareLedger ledger;
  /** The queued GPU jobs this claim read (the kept reservation's job and every candidate), by id. */
  private final Map<JobId, QueuedGpuJob> known = new HashMap<>();
  private boolean keptRead;
  private DevicePlacement.@Nullable KeptReservation kept;
  /** The claim order of the jobs without GPUs, read once; a job leased or tried is removed. */
  private @Nullable LinkedHashMap<JobId, QueuedJob> order;

  PgPoolTransaction(QueueContext ctx, QueueJobs jobs, Connection c, String tag, String claimer, Instant now,
      Duration collectorTimeout, FleetShares shares) {
    this.ctx = ctx;
    this.jobs = jobs;
    this.c = c;
    this.tag = tag;
    this.claimer = claimer;
    this.now = now;
    this.collectorTimeout = collectorTimeout;
    this.shares = shares;
  }

  @Override
  public String pool() {
    return tag;
  }

  @Override
  public Instant now() {
    return now;
  }

  @Override
  public List<DevicePlacement.Host> hosts() {
    try {
      Map<String, List<DevicePlacement.Holding>> holdings = holdings(ctx, c, tag, now);
      List<DevicePlacement.Host> hosts = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuHosts)) {
        st.setString(1, tag);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            String name = rs.getString(1);
            boolean live = rs.getBoolean(2)
                && now.isBefore(Objects.requireNonNull(PgValues.instant(rs, 3)).plus(collectorTimeout));
            if (name.equals(claimer) || live) {
              Devices devices = QueueRows.devices(QueueRows.ints(rs.getArray(4)), QueueRows.ints(rs.getArray(5)));
              java.sql.Array pending = rs.getArray(6);
              Devices usable = Collector.usable(devices, pending == null ? Optional.empty()
                  : Optional.of(QueueRows.devices(QueueRows.ints(pending), QueueRows.ints(rs.getArray(7)))));
              hosts.add(new DevicePlacement.Host(name, usable, holdings.getOrDefault(name, List.of())));
            }
          }
        }
      }
      return hosts;
    } catch (SQLException e) {
      throw new Failed(e);
    }
  }

  /** The live leases on the devices of a tag's collectors, by holder. */
  private static Map<String, List<DevicePlacement.Holding>> holdings(QueueContext ctx, Connection c, String tag,
      Instant now) throws SQLException {
    Map<String, List<DevicePlacement.Holding>> holdings = new HashMap<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuHoldings)) {
      setInstant(st, 1, now);
      st.setString(2, tag);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          holdings.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new DevicePlacement.Holding(
              JobId.of(rs.getLong(2)), QueueRows.ints(rs.getArray(3)),
              Objects.requireNonNull(PgValues.instant(rs, 4))));
        }
      }
    }
    return holdings;
  }

  @Override
  public FleetShares shares() {
    return shares;
  }

  @Override
  public ShareLedger ledger() {
    ShareLedger l = ledger;
    if (l == null) {
      try {
        l = ledger(ctx, c, tag, now);
      } catch (SQLException e) {
        throw new Failed(e);
      }
      ledger = l;
    }
    return l;
  }

  /** The pool's live leases and queued jobs per cadence, read in the claim's transaction. */
  private static ShareLedger ledger(QueueContext ctx, Connection c, String tag, Instant now) throws SQLException {
    ShareLedger ledger = new ShareLedger(tag);
    try (PreparedStatement st = c.prepareStatement(ctx.sql.leasedSpecsOfTag)) {
      st.setString(1, tag);
      setInstant(st, 2, now);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          ledger.leased(shareSpec(tag, rs.getInt(1), rs.getString(2)));
        }
      }
    }
    try (PreparedStatement st = c.prepareStatement(ctx.sql.queuedSpecsOfTag)) {
      st.setString(1, tag);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          ledger.queued(shareSpec(tag, rs.getInt(1), rs.getString(2)));
        }
      }
    }
    return ledger;
  }

  /** The spec a ledger counts for a (GPUs, cadence) row (its group does not matter to it). */
  private static JobSpec shareSpec(String tag, int gpus, @Nullable String cadence) {
    return JobSpec.builder().benchmarkGroup("ledger").collectorTag(tag)
        .gpus(Math.max(0, Math.min(gpus, JobSpec.MAX_GPUS))).cadence(cadence == null ? "" : cadence).build();
  }

  @Override
  public List<QueuedGpuJob> oldestQueued(int maxGpus) {
    List<QueuedGpuJob> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuCandidates)) {
      st.setInt(1, maxGpus);
      st.setString(2, tag);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          QueuedGpuJob job = QueuedGpuJob.of(JobId.of(rs.getLong(2)), rs.getInt(1),
              Duration.ofNanos(rs.getLong(3) * 1_000), "");
          out.add(job);
          known.putIfAbsent(job.job(), job);
        }
      }
    } catch (SQLException e) {
      throw new Failed(e);
    }
    return out;
  }

  @Override
  public List<QueuedGpuJob> oldestQueued(int maxGpus, Predicate<QueuedGpuJob> offered) {
    TreeMap<Integer, QueuedGpuJob> oldest = new TreeMap<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuQueuedOfTag)) {
      st.setString(1, tag);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          int gpus = rs.getInt(1);
          if (gpus < 1) {
            continue;
          }
          QueuedGpuJob job = QueuedGpuJob.of(JobId.of(rs.getLong(2)), gpus, Duration.ofNanos(rs.getLong(3) * 1_000),
              Objects.requireNonNullElse(rs.getString(4), ""));
          known.put(job.job(), job);
          if (gpus <= maxGpus && !oldest.containsKey(gpus) && offered.test(job)) {
            oldest.put(gpus, job);
          }
        }
      }
    } catch (SQLException e) {
      throw new Failed(e);
    }
    return new ArrayList<>(oldest.values());
  }

  @Override
  public Optional<QueuedGpuJob> queued(JobId job) {
    keptReservation();
    return Optional.ofNullable(known.get(job));
  }

  @Override
  public DevicePlacement.@Nullable KeptReservation keptReservation() {
    if (!keptRead) {
      keptRead = true;
      try (PreparedStatement st = c.prepareStatement(ctx.sql.keptReservation)) {
        st.setString(1, tag);
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            JobId job = JobId.of(rs.getLong(1));
            int gpus = rs.getInt(3);
            if (!rs.wasNull() && gpus >= 1) {
              known.put(job, QueuedGpuJob.of(job, gpus, Duration.ofNanos(rs.getLong(4) * 1_000),
                  Objects.requireNonNullElse(rs.getString(5), "")));
            }
            kept = new DevicePlacement.KeptReservation(job, rs.getString(2));
          }
        }
      } catch (SQLException e) {
        throw new Failed(e);
      }
    }
    return kept;
  }

  @Override
  public void keepReservation(DevicePlacement.@Nullable KeptReservation next) {
    try (PreparedStatement st = c.prepareStatement(next == null ? ctx.sql.forgetReservation
        : ctx.sql.keepReservation)) {
      st.setString(1, tag);
      if (next != null) {
        st.setLong(2, next.job().value());
        st.setString(3, next.host());
      }
      st.executeUpdate();
    } catch (SQLException e) {
      throw new Failed(e);
    }
    kept = next;
  }

  @Override
  public Claim lease(JobId id, List<Integer> devices, Instant expiry, Instant estimatedEnd) {
    known.remove(id);
    try {
      // The listing row first, then the job: the order cancellation takes, so the two never deadlock. A row
      // or job that a concurrent cancellation took means the snapshot is stale: the claim runs again.
      try (PreparedStatement st = c.prepareStatement(ctx.sql.unlistGpuJob)) {
        st.setLong(1, id.value());
        if (st.executeUpdate() != 1) {
          throw PgTransactions.rerun();
        }
      }
      Job job = jobs.load(c, id, true).orElseThrow(PgTransactions::rerun);
      if (job.state() != JobState.QUEUED) {
        throw PgTransactions.rerun();
      }
      Lease lease = job.nextLease(jobs.tokens(c, 1)[0], expiry, claimer, devices);
      Job claimed = job.claimed(lease);
      jobs.write(c, job, claimed, now);
      try (PreparedStatement st = c.prepareStatement(ctx.sql.insertHeldDevices)) {
        st.setString(1, claimer);
        st.setArray(2, c.createArrayOf("int4", devices.toArray()));
        st.setLong(3, id.value());
        setInstant(st, 4, estimatedEnd);
        st.executeUpdate();
      }
      if (ledger != null) {
        ledger.claimed(claimed.spec());
      }
      return new Claim(claimed, lease);
    } catch (SQLException e) {
      throw new Failed(e);
    }
  }

  @Override
  public Iterator<QueuedJob> claimOrder() {
    LinkedHashMap<JobId, QueuedJob> jobsInOrder = order;
    if (jobsInOrder == null) {
      jobsInOrder = new LinkedHashMap<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.shareCandidates)) {
        st.setString(1, tag);
        st.setString(2, claimer);
        setInstant(st, 3, now.minus(collectorTimeout));
        st.setString(4, claimer);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            JobId id = JobId.of(rs.getLong(1));
            jobsInOrder.put(id, new QueuedJob(id, Objects.requireNonNullElse(rs.getString(2), "")));
          }
        }
      } catch (SQLException e) {
        throw new Failed(e);
      }
      order = jobsInOrder;
    }
    return List.copyOf(jobsInOrder.values()).iterator();
  }

  @Override
  public Optional<Claim> lease(JobId id, Instant expiry) {
    LinkedHashMap<JobId, QueuedJob> jobsInOrder = Objects.requireNonNull(order, "claimOrder read first");
    if (jobsInOrder.remove(id) == null) {
      return Optional.empty();
    }
    try {
      List<Job> locked = new ArrayList<>(1);
      try (PreparedStatement st = c.prepareStatement(ctx.sql.lockQueuedJob)) {
        st.setLong(1, id.value());
        jobs.lockQueued(c, st, locked);
      }
      if (locked.isEmpty()) {
        return Optional.empty(); // cancelled meanwhile, or an impossible row left for the site to report
      }
      Job job = locked.get(0);
      Lease lease = job.nextLease(jobs.tokens(c, 1)[0], expiry, claimer);
      Job claimed = job.claimed(lease);
      jobs.write(c, job, claimed, now);
      ledger().claimed(claimed.spec());
      return Optional.of(new Claim(claimed, lease));
    } catch (SQLException e) {
      throw new Failed(e);
    }
  }
}

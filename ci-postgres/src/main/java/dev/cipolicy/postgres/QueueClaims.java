package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.spi.Claim;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.DevicePlacement;
import dev.cipolicy.queue.spi.Devices;
import dev.cipolicy.queue.spi.FleetShares;
import dev.cipolicy.queue.spi.Job;
import dev.cipolicy.queue.spi.JobId;
import dev.cipolicy.queue.spi.JobWait;
import dev.cipolicy.queue.spi.Lease;
import dev.cipolicy.queue.spi.LeaseRef;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.ShareLedger;
import dev.cipolicy.queue.spi.JobSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The claims of {@link PostgresQueueStore}. A claim of a collector whose tag the store knows first tries the
 * one-statement fast path ({@link QueueSql#claim}); when the collector is unknown, inactive or of another tag,
 * or a lease of its tag expired, that statement writes nothing and the full transaction runs: it reads the
 * collector, processes the tag's expired leases, tries the fast path again, and otherwise locks and leases
 * job by job.
 */
final class QueueClaims {

  private final QueueContext ctx;
  private final QueueJobs jobs;
  private final QueueExpiry expiry;
  private final QueueCollectors collectors;

  QueueClaims(QueueContext ctx, QueueJobs jobs, QueueExpiry expiry, QueueCollectors collectors) {
    this.ctx = ctx;
    this.jobs = jobs;
    this.expiry = expiry;
    this.collectors = collectors;
  }

  /** Claims at the store's now, read on the operation's connection. */
  ClaimResult claim(ClaimCommand command) {
    String known = collectors.knownTag(command.collector());
    return ctx.tx.run("claim", known == null ? null : c -> claimFast(c, command, known, ctx.boundNow()),
        c -> claimFully(c, command));
  }

  /**
   * Claims on the connection of a larger operation ({@code completeAndClaim}), inside its transaction: the
   * fast path when the collector's tag is known and {@code fast} holds, else (or when it does not apply) the
   * full claim, so the outcome is what {@link #claim} gives. A unique violation of the fast path (a queued job
   * holding a stray lease row) aborts the transaction; the caller then re-runs the operation with
   * {@code fast} false, and the full claim skips that job.
   */
  ClaimResult claimOn(Connection c, ClaimCommand command, boolean fast) throws SQLException {
    String known = fast ? collectors.knownTag(command.collector()) : null;
    if (known != null) {
      ClaimResult quick = claimFast(c, command, known, ctx.boundNow());
      if (quick != null) {
        return quick;
      }
    }
    return claimFully(c, command);
  }

  private ClaimResult claimFully(Connection c, ClaimCommand command) throws SQLException {
    String tag;
    boolean hasDevices;
    try (PreparedStatement st = c.prepareStatement(ctx.sql.collectorTagAndActive)) {
      st.setString(1, command.collector());
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return new ClaimResult(ClaimResult.Status.UNKNOWN_COLLECTOR, List.of());
        }
        tag = rs.getString(1);
        collectors.learnTag(command.collector(), tag);
        if (!rs.getBoolean(2)) {
          return new ClaimResult(ClaimResult.Status.INACTIVE_COLLECTOR, List.of());
        }
        hasDevices = rs.getBoolean(3);
      }
    }
    Instant now = ctx.now(c);
    boolean capped = !shares(c, tag).isEmpty();
    if (hasDevices || capped) {
      // GPU claims of one pool are serialized: each reads the whole pool to place and reserve. So are all
      // claims of a pool with fleet shares: the share check and the leases are one step.
      try (PreparedStatement st = c.prepareStatement(ctx.sql.lockGpuPool)) {
        st.setString(1, ctx.sql.jobs + " gpu " + tag);
        st.execute();
      }
    }
    // An impossible expired row is skipped here; the site's expireLeases reports it.
    expiry.expire(c, tag, now, command.maxCrashRescues(), null, new ArrayList<>());
    if (capped) {
      return claimCapped(c, command, tag, now, hasDevices);
    }
    if (hasDevices) {
      List<Claim> gpu = claimGpu(c, command, tag, now, null, null);
      if (!gpu.isEmpty()) {
        ClaimResult rest = gpu.size() == command.limit() ? null : claimQueued(c, new ClaimCommand(
            command.collector(), command.leaseDuration(), command.collectorTimeout(), command.maxCrashRescues(),
            command.limit() - gpu.size()), tag, now);
        List<Claim> all = new ArrayList<>(gpu);
        if (rest != null) {
          all.addAll(rest.claims());
        } else {
          collectors.touch(c, command.collector(), now);
        }
        return new ClaimResult(ClaimResult.Status.OK, all);
      }
    }
    return claimQueued(c, command, tag, now);
  }

  /**
   * Replaces every fleet share in one transaction; the table lock makes concurrent replacements take turns
   * (a claim reads the shares without waiting for it).
   */
  void setShares(FleetShares shares) {
    ctx.tx.inTransaction("setShares", c -> {
      try (PreparedStatement st = c.prepareStatement(ctx.sql.lockShares)) {
        st.execute();
      }
      try (PreparedStatement st = c.prepareStatement(ctx.sql.deleteShares)) {
        st.executeUpdate();
      }
      try (PreparedStatement st = c.prepareStatement(ctx.sql.insertShare)) {
        for (FleetShares.Share s : shares.shares()) {
          st.setString(1, s.cadence());
          st.setString(2, s.pool());
          st.setString(3, s.unit().name());
          st.setInt(4, s.amount());
          st.setBoolean(5, s.borrow());
          st.addBatch();
        }
        if (!shares.isEmpty()) {
          st.executeBatch();
        }
      }
      return Boolean.TRUE;
    });
  }

  /** Every fleet share the database holds. */
  FleetShares shares() {
    return ctx.tx.inTransaction("shares", c -> {
      try (PreparedStatement st = c.prepareStatement(ctx.sql.allShares)) {
        return readShares(st);
      }
    });
  }

  /** The fleet shares of a pool, read in the claim's transaction. */
  private FleetShares shares(Connection c, String pool) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(ctx.sql.sharesOfPool)) {
      st.setString(1, pool);
      return readShares(st);
    }
  }

  /** Reads fleet shares from a statement with the columns of {@link QueueSql#allShares}. */
  static FleetShares readShares(PreparedStatement st) throws SQLException {
    List<FleetShares.Share> out = new ArrayList<>();
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(new FleetShares.Share(rs.getString(1), rs.getString(2), FleetShares.Unit.valueOf(rs.getString(3)),
            rs.getInt(4), rs.getBoolean(5)));
      }
    }
    return new FleetShares(out);
  }

  /** The pool's live leases and queued jobs per cadence, read in the claim's transaction. */
  private ShareLedger ledger(Connection c, String tag, Instant now) throws SQLException {
    List<JobSpec> live = new ArrayList<>();
    List<JobSpec> queued = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.leasedSpecsOfTag)) {
      st.setString(1, tag);
      setInstant(st, 2, now);
      specs(st, tag, live);
    }
    try (PreparedStatement st = c.prepareStatement(ctx.sql.queuedSpecsOfTag)) {
      st.setString(1, tag);
      specs(st, tag, queued);
    }
    return ShareLedger.of(tag, live, queued);
  }

  /** Reads (gpus, cadence) rows as the specs a ledger counts (their group does not matter to it). */
  private static void specs(PreparedStatement st, String tag, List<JobSpec> out) throws SQLException {
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(shareSpec(tag, rs.getInt(1), rs.getString(2)));
      }
    }
  }

  private static JobSpec shareSpec(String tag, int gpus, @Nullable String cadence) {
    return new JobSpec("ledger", tag, false, Math.max(0, Math.min(gpus, JobSpec.MAX_GPUS)), Duration.ZERO,
        cadence == null ? "" : cadence);
  }

  /**
   * A claim of a pool with fleet shares, under the pool's lock with its expired leases processed: GPU jobs
   * first for a collector with devices (the oldest admitted job of each GPU count offered to the placement),
   * then jobs that need no GPU, one at a time, each the first queued job in claim order (affinity to the
   * claimer first, then by id) that {@link ShareLedger#admits} given the leases taken so far.
   */
  private ClaimResult claimCapped(Connection c, ClaimCommand command, String tag, Instant now, boolean hasDevices)
      throws SQLException {
    FleetShares shares = shares(c, tag);
    ShareLedger ledger = ledger(c, tag, now);
    List<Claim> claims = new ArrayList<>(hasDevices ? claimGpu(c, command, tag, now, shares, ledger) : List.of());
    if (claims.size() < command.limit()) {
      List<long[]> order = new ArrayList<>();
      List<String> cadences = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.shareCandidates)) {
        st.setString(1, tag);
        st.setString(2, command.collector());
        setInstant(st, 3, now.minus(command.collectorTimeout()));
        st.setString(4, command.collector());
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            order.add(new long[] {rs.getLong(1)});
            cadences.add(java.util.Objects.requireNonNullElse(rs.getString(2), ""));
          }
        }
      }
      boolean[] gone = new boolean[order.size()];
      Instant expiresAt = QueueStore.truncate(now.plus(command.leaseDuration()));
      boolean progress = true;
      while (progress && claims.size() < command.limit()) {
        progress = false;
        for (int i = 0; i < order.size(); i++) {
          if (gone[i] || !ledger.admits(shares, shareSpec(tag, 0, cadences.get(i)))) {
            continue;
          }
          gone[i] = true;
          List<Job> locked = new ArrayList<>(1);
          try (PreparedStatement st = c.prepareStatement(ctx.sql.lockQueuedJob)) {
            st.setLong(1, order.get(i)[0]);
            jobs.lockQueued(c, st, locked);
          }
          if (locked.isEmpty()) {
            continue; // cancelled meanwhile, or an impossible row left for the site to report
          }
          Job job = locked.get(0);
          Lease lease = job.nextLease(jobs.tokens(c, 1)[0], expiresAt, command.collector());
          Job claimed = job.claimed(lease);
          jobs.write(c, job, claimed);
          ledger.claimed(claimed.spec());
          claims.add(new Claim(claimed, lease));
          progress = true;
          break;
        }
      }
    }
    collectors.touch(c, command.collector(), now);
    return new ClaimResult(ClaimResult.Status.OK, claims);
  }

  /** Claims jobs that need no GPU, once the tag's expired leases are processed. */
  private ClaimResult claimQueued(Connection c, ClaimCommand command, String tag, Instant now)
      throws SQLException {
    // With the expired leases processed (unless another claim holds some), the one-statement claim applies;
    // when it fails on a queued job that holds a stray lease row (a unique violation), the savepoint undoes
    // it and the claim goes on job by job, skipping that job.
    Savepoint beforeQuick = c.setSavepoint();
    try {
      ClaimResult quick = claimFast(c, command, tag, now);
      if (quick != null) {
        return quick;
      }
    } catch (SQLException e) {
      if (!PgTransactions.UNIQUE_VIOLATION.equals(e.getSQLState())) {
        throw e;
      }
      c.rollback(beforeQuick);
    }
    List<Job> candidates = new ArrayList<>(Math.min(command.limit(), 64));
    try (PreparedStatement st = c.prepareStatement(ctx.sql.lockOwnQueued)) {
      st.setString(1, tag);
      st.setString(2, command.collector());
      st.setInt(3, command.limit());
      jobs.lockQueued(c, st, candidates);
    }
    if (candidates.size() < command.limit()) {
      try (PreparedStatement st = c.prepareStatement(ctx.sql.lockOtherQueued)) {
        st.setString(1, tag);
        st.setString(2, command.collector());
        setInstant(st, 3, now.minus(command.collectorTimeout()));
        st.setInt(4, command.limit() - candidates.size());
        jobs.lockQueued(c, st, candidates);
      }
    }
    List<Claim> claims = new ArrayList<>(candidates.size());
    if (!candidates.isEmpty()) {
      long[] fresh = jobs.tokens(c, candidates.size());
      Instant expiresAt = QueueStore.truncate(now.plus(command.leaseDuration()));
      List<Job[]> changes = new ArrayList<>(candidates.size());
      for (int i = 0; i < candidates.size(); i++) {
        Job job = candidates.get(i);
        Lease lease = job.nextLease(fresh[i], expiresAt, command.collector());
        Job claimed = job.claimed(lease);
        claims.add(new Claim(claimed, lease));
        changes.add(new Job[] {job, claimed});
      }
      jobs.write(c, changes);
    }
    collectors.touch(c, command.collector(), now);
    return new ClaimResult(ClaimResult.Status.OK, claims);
  }

  /** The queued jobs of a pool with their wait reasons, read in one transaction at the store's now. */
  List<JobWait> waits(String tag, Duration collectorTimeout) {
    return ctx.tx.inTransaction("waitingJobs", c -> {
      Instant now = ctx.now(c);
      List<Job> queued = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.queuedJobsOfTag)) {
        st.setString(1, tag);
        jobs.read(st, queued);
      }
      int live;
      try (PreparedStatement st = c.prepareStatement(ctx.sql.liveCollectorsOfTag)) {
        st.setString(1, tag);
        setInstant(st, 2, now.minus(collectorTimeout));
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          live = rs.getInt(1);
        }
      }
      Map<String, List<DevicePlacement.Holding>> holdings = holdings(c, tag);
      FleetShares shares = shares(c, tag);
      ShareLedger ledger = shares.isEmpty() ? new ShareLedger(tag) : ledger(c, tag, now);
      List<DevicePlacement.Host> hosts = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuHosts)) {
        st.setString(1, tag);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            String name = rs.getString(1);
            if (rs.getBoolean(2)
                && now.isBefore(java.util.Objects.requireNonNull(PgValues.instant(rs, 3)).plus(collectorTimeout))) {
              hosts.add(new DevicePlacement.Host(name, QueueRows.devices(QueueRows.ints(rs.getArray(4)),
                  QueueRows.ints(rs.getArray(5))), holdings.getOrDefault(name, List.of())));
            }
          }
        }
      }
      return DevicePlacement.waits(tag, queued, hosts, live, now, shares, ledger,
          keptReservation(c, tag, new HashMap<>()));
    });
  }

  /** The live leases on the devices of a tag's collectors, by holder. */
  private Map<String, List<DevicePlacement.Holding>> holdings(Connection c, String tag) throws SQLException {
    Map<String, List<DevicePlacement.Holding>> holdings = new HashMap<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuHoldings)) {
      st.setString(1, tag);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          holdings.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new DevicePlacement.Holding(
              JobId.of(rs.getLong(2)), QueueRows.ints(rs.getArray(3)),
              java.util.Objects.requireNonNull(PgValues.instant(rs, 4))));
        }
      }
    }
    return holdings;
  }

  /**
   * Claims GPU jobs for a collector with devices, as {@link DevicePlacement#place} decides, one at a time:
   * each placement reads the pool's live hosts, their holdings and the oldest queued job of each GPU count,
   * with the job that holds the pool's kept reservation, then leases the job and inserts one held-device row
   * per device (whose primary key refuses a device held twice). After the last placement it records the
   * pool's reservation as it then stands ({@link QueueSql#keepReservation}, or forgets it), so that the next
   * claim keeps it for the same job. The caller holds the pool's advisory lock.
   */
  private List<Claim> claimGpu(Connection c, ClaimCommand command, String tag, Instant now,
      @Nullable FleetShares shares, @Nullable ShareLedger ledger) throws SQLException {
    List<DevicePlacement.Host> hosts = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<Devices> inventories = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuHosts)) {
      st.setString(1, tag);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString(1);
          boolean live = rs.getBoolean(2) && now.isBefore(java.util.Objects.requireNonNull(PgValues.instant(rs, 3)).plus(command.collectorTimeout()));
          if (name.equals(command.collector()) || live) {
            names.add(name);
            inventories.add(QueueRows.devices(QueueRows.ints(rs.getArray(4)), QueueRows.ints(rs.getArray(5))));
          }
        }
      }
    }
    Map<String, List<DevicePlacement.Holding>> holdings = holdings(c, tag);
    int largest = 0;
    for (Devices d : inventories) {
      largest = Math.max(largest, d.size());
    }
    // The queued jobs this claim knows (the kept one and every candidate read), to offer the kept one again.
    Map<JobId, KnownJob> known = new HashMap<>();
    DevicePlacement.KeptReservation stored = keptReservation(c, tag, known);
    DevicePlacement.KeptReservation kept = stored;
    Instant expiresAt = QueueStore.truncate(now.plus(command.leaseDuration()));
    List<Claim> claims = new ArrayList<>();
    while (true) {
      hosts.clear();
      for (int i = 0; i < names.size(); i++) {
        hosts.add(new DevicePlacement.Host(names.get(i), inventories.get(i),
            holdings.getOrDefault(names.get(i), List.of())));
      }
      List<DevicePlacement.Candidate> candidates = new ArrayList<>();
      int mostFree = DevicePlacement.mostFree(hosts);
      if (shares != null && ledger != null) {
        admittedGpuCandidates(c, tag, largest, mostFree, shares, ledger, candidates, known);
      } else {
        try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuCandidates)) {
          st.setInt(1, largest);
          st.setString(2, tag);
          try (ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
              DevicePlacement.Candidate candidate = new DevicePlacement.Candidate(JobId.of(rs.getLong(2)),
                  rs.getInt(1), Duration.ofNanos(rs.getLong(3) * 1_000));
              candidates.add(candidate);
              known.putIfAbsent(candidate.job(), new KnownJob(candidate, ""));
            }
          }
        }
      }
      KnownJob holder = kept == null ? null : known.get(kept.job());
      boolean heldBack = holder != null && shares != null && ledger != null
          && !ledger.admits(shares, shareSpec(tag, holder.candidate().gpus(), holder.cadence()), mostFree);
      if (holder != null && !heldBack && !candidates.contains(holder.candidate())) {
        candidates.add(holder.candidate());
      }
      // The reservation as it stands before each placement, and after the last one: what the pool keeps (a
      // reservation whose job its share now refuses stays kept, dormant).
      kept = DevicePlacement.keep(kept, heldBack, DevicePlacement.reservation(hosts, candidates, now, kept));
      if (claims.size() >= command.limit()) {
        break;
      }
      Optional<DevicePlacement.Placement> placement = DevicePlacement.place(hosts, command.collector(),
          candidates, now, kept);
      if (placement.isEmpty()) {
        break;
      }
      JobId id = placement.get().job();
      known.remove(id);
      // The listing row first, then the job: the order cancellation takes, so the two never deadlock. A row
      // or job that a concurrent cancellation took means the snapshot is stale: the claim runs again.
      try (PreparedStatement st = c.prepareStatement(ctx.sql.unlistGpuJob)) {
        st.setLong(1, id.value());
        if (st.executeUpdate() != 1) {
          throw PgTransactions.rerun();
        }
      }
      Job job = jobs.load(c, id, true).orElseThrow(PgTransactions::rerun);
      if (job.state() != dev.cipolicy.queue.spi.JobState.QUEUED) {
        throw PgTransactions.rerun();
      }
      List<Integer> devices = placement.get().devices();
      Lease lease = job.nextLease(jobs.tokens(c, 1)[0], expiresAt, command.collector(), devices);
      Job claimed = job.claimed(lease);
      jobs.write(c, job, claimed);
      Instant end = DevicePlacement.estimatedEnd(now, job.spec().estimate(), expiresAt);
      try (PreparedStatement st = c.prepareStatement(ctx.sql.insertHeldDevices)) {
        st.setString(1, command.collector());
        st.setArray(2, c.createArrayOf("int4", devices.toArray()));
        st.setLong(3, id.value());
        setInstant(st, 4, end);
        st.executeUpdate();
      }
      holdings.computeIfAbsent(command.collector(), k -> new ArrayList<>())
          .add(new DevicePlacement.Holding(id, devices, end));
      if (ledger != null) {
        ledger.claimed(claimed.spec());
      }
      claims.add(new Claim(claimed, lease));
    }
    if (!java.util.Objects.equals(kept, stored)) {
      try (PreparedStatement st = c.prepareStatement(kept == null ? ctx.sql.forgetReservation
          : ctx.sql.keepReservation)) {
        st.setString(1, tag);
        if (kept != null) {
          st.setLong(2, kept.job().value());
          st.setString(3, kept.host());
        }
        st.executeUpdate();
      }
    }
    return claims;
  }

  /** A queued GPU job a claim read: as a candidate, with its cadence ("" when the claim did not need it). */
  private record KnownJob(DevicePlacement.Candidate candidate, String cadence) {}

  /**
   * The reservation the pool kept, as its row says (null without one); its job goes into {@code known} when it
   * is still queued.
   */
  private DevicePlacement.@Nullable KeptReservation keptReservation(Connection c, String tag,
      Map<JobId, KnownJob> known) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(ctx.sql.keptReservation)) {
      st.setString(1, tag);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        JobId job = JobId.of(rs.getLong(1));
        int gpus = rs.getInt(3);
        if (!rs.wasNull() && gpus >= 1) {
          known.put(job, new KnownJob(new DevicePlacement.Candidate(job, gpus,
              Duration.ofNanos(rs.getLong(4) * 1_000)), java.util.Objects.requireNonNullElse(rs.getString(5), "")));
        }
        return new DevicePlacement.KeptReservation(job, rs.getString(2));
      }
    }
  }

  /**
   * The oldest queued job of each GPU count (up to the largest host) that the shares admit, borrowing judged
   * against {@code mostFree}, the free devices of the roomiest host; every queued GPU job read goes into
   * {@code known}.
   */
  private void admittedGpuCandidates(Connection c, String tag, int largest, int mostFree, FleetShares shares,
      ShareLedger ledger, List<DevicePlacement.Candidate> out, Map<JobId, KnownJob> known) throws SQLException {
    java.util.TreeMap<Integer, DevicePlacement.Candidate> oldest = new java.util.TreeMap<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.gpuQueuedOfTag)) {
      st.setString(1, tag);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          int gpus = rs.getInt(1);
          if (gpus < 1) {
            continue;
          }
          String cadence = rs.getString(4);
          DevicePlacement.Candidate candidate = new DevicePlacement.Candidate(JobId.of(rs.getLong(2)),
              gpus, Duration.ofNanos(rs.getLong(3) * 1_000));
          known.put(candidate.job(), new KnownJob(candidate, cadence == null ? "" : cadence));
          if (gpus > largest || oldest.containsKey(gpus)
              || !ledger.admits(shares, shareSpec(tag, gpus, cadence), mostFree)) {
            continue;
          }
          oldest.put(gpus, candidate);
        }
      }
    }
    out.addAll(oldest.values());
  }

  /**
   * Runs the claim fast path. When a run met queued-jobs rows whose jobs were not queued (it deletes them), it
   * claimed fewer jobs than it locked rows; the path then runs again for the rest of the limit, so such rows
   * never make a claim come back short while claimable jobs wait. Null when the fast path does not apply
   * (unknown or inactive collector, another tag, expired leases to process first): it then wrote nothing.
   */
  private @Nullable ClaimResult claimFast(Connection c, ClaimCommand command, String tag, @Nullable Instant now)
      throws SQLException {
    List<Claim> claims = new ArrayList<>(Math.min(command.limit(), 64));
    ClaimCommand run = command;
    while (true) {
      long picked;
      int before = claims.size();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.claim)) {
        bind(st, 1, run, tag, now);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          if (!rs.getBoolean(28)) {
            return null;
          }
          long inserted = rs.getLong(29);
          picked = rs.getLong(30);
          readClaimed(rs, claims);
          if (inserted != claims.size() - before) {
            throw new QueueStoreException("claim in schema " + ctx.schema + " leased " + (claims.size() - before)
                + " jobs but inserted " + inserted + " leases");
          }
        }
      }
      int claimed = claims.size() - before;
      int rest = command.limit() - claims.size();
      if (picked == claimed || rest == 0) {
        return new ClaimResult(ClaimResult.Status.OK, claims);
      }
      run = new ClaimCommand(command.collector(), command.leaseDuration(), command.collectorTimeout(),
          command.maxCrashRescues(), rest);
    }
  }

  /**
   * What a {@code completeAndClaim} did on its way: the completion, the claims made so far (null when no claim
   * was made), and the claim still to run after the transaction (null when none): the whole claim when the
   * claim's fast path did not apply, or the rest of the limit when queued-jobs rows of jobs no longer queued
   * made the fast path come back short. With both null the completion did not end the lease, so no claim runs.
   */
  record Combined(LeaseResult completion, @Nullable ClaimResult claimed, @Nullable ClaimCommand pending) {}

  /** The collector's tag if this store has seen it (the fast paths apply only then), else null. */
  @Nullable String knownTag(String collector) {
    return collectors.knownTag(collector);
  }

  /**
   * Runs {@link QueueSql#completeAndClaim}: the completion fast path and, when it ended the lease, the claim
   * fast path, in one statement. Null when the completion's fast path did not apply (stale, expired, unknown or
   * flagged lease, or a row that needs the full checks): the statement then wrote nothing, and the full path
   * runs.
   */
  @Nullable Combined completeAndClaimFast(Connection c, LeaseRef lease, ClaimCommand next, String tag,
      @Nullable Instant now) throws SQLException {
    String name = next.collector();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.completeAndClaim)) {
      int i = bindNow(st, 1, next, now);
      st.setLong(i++, lease.jobId().value());
      st.setInt(i++, lease.attempt());
      st.setLong(i++, lease.token());
      st.setInt(i++, lease.attempt());
      bindClaim(st, i, next, tag);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next() || rs.getInt(32) != 0) {
          return null;
        }
        Job done = ctx.rows.job(rs);
        if (rs.getLong(28) != 1) {
          throw ctx.changedUnderLock("end the lease of job " + lease.jobId().value());
        }
        LeaseResult completion = new LeaseResult(LeaseStatus.OK, Optional.of(done));
        if (!rs.next() || rs.getInt(32) != 1) {
          throw new QueueStoreException("completeAndClaim in schema " + ctx.schema
              + " returned no claim row after completing job " + lease.jobId().value());
        }
        if (!rs.getBoolean(29)) {
          return new Combined(completion, null, next);
        }
        long inserted = rs.getLong(30);
        long picked = rs.getLong(31);
        List<Claim> claims = new ArrayList<>(Math.min(next.limit(), 64));
        readClaimed(rs, claims);
        if (inserted != claims.size()) {
          throw new QueueStoreException("completeAndClaim in schema " + ctx.schema + " leased " + claims.size()
              + " jobs but inserted " + inserted + " leases");
        }
        int rest = next.limit() - claims.size();
        ClaimCommand more = picked != claims.size() && rest > 0 ? new ClaimCommand(name, next.leaseDuration(),
            next.collectorTimeout(), next.maxCrashRescues(), rest) : null;
        return new Combined(completion, new ClaimResult(ClaimResult.Status.OK, claims), more);
      }
    }
  }

  /**
   * Adds the claimed jobs of a fast path's result to {@code out}, from the current row to the last (a row with
   * null job columns, which stands for no claim, is skipped).
   */
  private void readClaimed(ResultSet rs, List<Claim> out) throws SQLException {
    do {
      rs.getLong(1);
      if (rs.wasNull()) {
        continue;
      }
      Job job = ctx.rows.job(rs);
      out.add(new Claim(job, QueueJobs.lease(job)));
    } while (rs.next());
  }

  /**
   * Binds the claim fast path's parameters from {@code first} on.
   *
   * @param st the prepared {@link QueueSql#claim}, possibly behind {@code EXPLAIN}
   * @param first the index of its first parameter
   * @param command the claim
   * @param tag the collector's tag
   * @param now the store's now, or null for the server's clock read by the statement
   */
  static void bind(PreparedStatement st, int first, ClaimCommand command, String tag, @Nullable Instant now)
      throws SQLException {
    int i = bindNow(st, first, command, now);
    bindClaim(st, i, command, tag);
  }

  /** Binds the fast paths' now ({@code t}: lease duration, collector timeout, now); the next index. */
  private static int bindNow(PreparedStatement st, int first, ClaimCommand command, @Nullable Instant now)
      throws SQLException {
    st.setLong(first, micros(command.leaseDuration()));
    st.setLong(first + 1, micros(command.collectorTimeout()));
    setInstant(st, first + 2, now);
    return first + 3;
  }

  /** Binds the claim's own parameters from {@code first} on: its common table expressions, then the claimer. */
  private static void bindClaim(PreparedStatement st, int first, ClaimCommand command, String tag)
      throws SQLException {
    String name = command.collector();
    int i = first;
    st.setString(i++, name);
    st.setString(i++, tag);
    st.setString(i++, tag);
    st.setString(i++, tag);
    st.setString(i++, name);
    st.setInt(i++, command.limit());
    st.setString(i++, tag);
    st.setString(i++, name);
    st.setInt(i++, command.limit());
    st.setInt(i++, command.limit());
    st.setString(i++, name);
    st.setString(i++, name);
    st.setString(i++, name);
    st.setString(i, name);
  }


  /** A duration in whole microseconds (truncated), as the claim statement adds it to now. */
  private static long micros(Duration d) {
    return d.getSeconds() * 1_000_000L + d.getNano() / 1_000;
  }

}

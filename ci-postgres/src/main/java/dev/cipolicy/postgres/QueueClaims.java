package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolClaimer;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.placement.ShareLedger;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
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
    boolean pending;
    Instant now = ctx.now(c);
    try (PreparedStatement st = c.prepareStatement(ctx.sql.collectorTagAndActive)) {
      setInstant(st, 1, now);
      st.setString(2, command.collector());
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next() || rs.getBoolean(5)) {
          return new ClaimResult(ClaimResult.Status.UNKNOWN_COLLECTOR, List.of());
        }
        tag = rs.getString(1);
        collectors.learnTag(command.collector(), tag);
        if (!rs.getBoolean(2)) {
          return new ClaimResult(ClaimResult.Status.INACTIVE_COLLECTOR, List.of());
        }
        hasDevices = rs.getBoolean(3);
        pending = rs.getBoolean(4);
      }
    }
    boolean capped = !shares(c, tag).isEmpty();
    if (hasDevices || capped) {
      // GPU claims of one pool are serialized: each reads the whole pool to place and reserve. So are all
      // claims of a pool with fleet shares: the share check and the leases are one step. The collector's row is
      // locked first (key share, above), as registrations and retirements lock it before the pool: one order.
      try (PreparedStatement st = c.prepareStatement(ctx.sql.lockGpuPool)) {
        st.setString(1, ctx.sql.jobs + " gpu " + tag);
        st.execute();
      }
    }
    // An impossible expired row is skipped here; the site's expireLeases reports it.
    expiry.expire(c, tag, now, command.maxCrashRescues(), null, new ArrayList<>());
    if (paused(c, tag)) {
      collectors.touch(c, command.collector(), now);
      return new ClaimResult(ClaimResult.Status.OK, List.of());
    }
    if (pending) {
      hasDevices = collectors.takeAtClaim(c, command.collector(), now);
    }
    if (capped) {
      return claimCapped(c, command, tag, now, hasDevices);
    }
    if (hasDevices) {
      List<Claim> gpu = claimGpu(c, command, tag, now, FleetShares.none());
      if (!gpu.isEmpty()) {
        ClaimResult rest = gpu.size() == command.limit() ? null : claimQueued(c,
            ClaimCommand.builder().from(command).limit(command.limit() - gpu.size()).build(), tag, now);
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

  /**
   * A claim of a pool with fleet shares, under the pool's lock with its expired leases processed: GPU jobs
   * first for a collector with devices (the oldest admitted job of each GPU count offered to the placement),
   * then jobs that need no GPU, one at a time, each the first queued job in claim order (affinity to the
   * claimer first, then by id) that {@link ShareLedger#admits} given the leases taken so far.
   */
  private ClaimResult claimCapped(Connection c, ClaimCommand command, String tag, Instant now, boolean hasDevices)
      throws SQLException {
    PgPoolTransaction tx = new PgPoolTransaction(ctx, jobs, c, tag, command.collector(), now,
        command.collectorTimeout(), shares(c, tag));
    Instant expiry = QueueStore.truncate(now.plus(command.leaseDuration()));
    try {
      List<Claim> claims = new ArrayList<>(hasDevices
          ? PoolClaimer.claimGpu(tx, command.collector(), command.limit(), expiry) : List.of());
      PoolClaimer.claimAdmitted(tx, command.limit(), expiry, claims);
      collectors.touch(c, command.collector(), now);
      return new ClaimResult(ClaimResult.Status.OK, claims);
    } catch (PgPoolTransaction.Failed e) {
      throw e.sql();
    }
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
      jobs.write(c, changes, now);
    }
    collectors.touch(c, command.collector(), now);
    return new ClaimResult(ClaimResult.Status.OK, claims);
  }

  /** Whether an operator paused the pool, read on the operation's connection. */
  private boolean paused(Connection c, String tag) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM " + ctx.sql.pausedPools + " WHERE pool = ?")) {
      st.setString(1, tag);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The view of a pool with its queued jobs' wait reasons, read in one transaction at the store's now. */
  PoolView pool(String tag, Duration collectorTimeout) {
    return ctx.tx.inTransaction("pool", c -> {
      Instant now = ctx.now(c);
      List<Job> queued = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.queuedJobsOfTag)) {
        st.setString(1, tag);
        jobs.read(st, queued);
      }
      List<String> live = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.liveCollectorsOfTag)) {
        st.setString(1, tag);
        setInstant(st, 2, now.minus(collectorTimeout));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            live.add(rs.getString(1));
          }
        }
      }
      FleetShares shares = shares(c, tag);
      // No claimer: collector names are never empty, so the view's hosts are the live ones only.
      PgPoolTransaction tx = new PgPoolTransaction(ctx, jobs, c, tag, "", now, collectorTimeout, shares);
      try {
        PoolView view = DevicePlacement.view(tag, now, queued, tx.hosts(), live, shares,
            shares.isEmpty() ? new ShareLedger(tag) : tx.ledger(), tx.keptReservation());
        return paused(c, tag) ? view.paused() : view;
      } catch (PgPoolTransaction.Failed e) {
        throw e.sql();
      }
    });
  }

  /**
   * Claims GPU jobs for a collector with devices of a pool without fleet shares, through the one claim loop
   * ({@link PoolClaimer#claimGpu}). The caller holds the pool's advisory lock.
   */
  private List<Claim> claimGpu(Connection c, ClaimCommand command, String tag, Instant now, FleetShares shares)
      throws SQLException {
    PgPoolTransaction tx = new PgPoolTransaction(ctx, jobs, c, tag, command.collector(), now,
        command.collectorTimeout(), shares);
    try {
      return PoolClaimer.claimGpu(tx, command.collector(), command.limit(),
          QueueStore.truncate(now.plus(command.leaseDuration())));
    } catch (PgPoolTransaction.Failed e) {
      throw e.sql();
    }
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
          if (!rs.getBoolean(29)) {
            return null;
          }
          long inserted = rs.getLong(30);
          picked = rs.getLong(31);
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
      run = ClaimCommand.builder().from(command).limit(rest).build();
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
    try (PreparedStatement st = c.prepareStatement(ctx.sql.completeAndClaim)) {
      int i = bindNow(st, 1, next, now);
      st.setLong(i++, lease.jobId().value());
      st.setInt(i++, lease.attempt());
      st.setLong(i++, lease.token());
      st.setInt(i++, lease.attempt());
      bindClaim(st, i, next, tag);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next() || rs.getInt(33) != 0) {
          return null;
        }
        Job done = ctx.rows.job(rs);
        if (rs.getLong(29) != 1) {
          throw ctx.changedUnderLock("end the lease of job " + lease.jobId().value());
        }
        LeaseResult completion = new LeaseResult(LeaseStatus.OK, Optional.of(done));
        if (!rs.next() || rs.getInt(33) != 1) {
          throw new QueueStoreException("completeAndClaim in schema " + ctx.schema
              + " returned no claim row after completing job " + lease.jobId().value());
        }
        if (!rs.getBoolean(30)) {
          return new Combined(completion, null, next);
        }
        long inserted = rs.getLong(31);
        long picked = rs.getLong(32);
        List<Claim> claims = new ArrayList<>(Math.min(next.limit(), 64));
        readClaimed(rs, claims);
        if (inserted != claims.size()) {
          throw new QueueStoreException("completeAndClaim in schema " + ctx.schema + " leased " + claims.size()
              + " jobs but inserted " + inserted + " leases");
        }
        int rest = next.limit() - claims.size();
        ClaimCommand more = picked != claims.size() && rest > 0 ? ClaimCommand.builder().from(next).limit(rest).build()
            : null;
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

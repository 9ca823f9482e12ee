package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobResult;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The fenced operations of {@link PostgresQueueStore} on a lease: heartbeat, complete (one or a batch), fail
 * and release. Each acts only on the job's live lease of exactly this fence ({@link LeaseRef}); anything
 * else is {@link LeaseStatus#STALE_LEASE} (or {@link LeaseStatus#NOT_FOUND}) and changes nothing, and a job
 * flagged for cancellation is cancelled instead. Heartbeats and completions first try one statement; the
 * full path locks the job, checks the fence and writes the transition the job's value computes.
 */
final class QueueLeases {

  private final QueueContext ctx;
  private final QueueJobs jobs;
  private final QueueCollectors collectors;

  QueueLeases(QueueContext ctx, QueueJobs jobs, QueueCollectors collectors) {
    this.ctx = ctx;
    this.jobs = jobs;
    this.collectors = collectors;
  }

  /** The work of a fenced update once the fence holds and the job is not flagged, at the store's now. */
  @FunctionalInterface
  private interface LeaseWork {
    LeaseResult run(Connection c, Job current, Instant now) throws SQLException;
  }

  LeaseResult heartbeat(LeaseRef lease, Duration leaseDuration) {
    return ctx.tx.inTransaction("heartbeat", c -> {
      Instant now = ctx.now(c);
      // Fast path: one fenced UPDATE of the narrow lease row; the job row is not rewritten.
      String holder = null;
      try (PreparedStatement st = c.prepareStatement(ctx.sql.renewLease)) {
        setInstant(st, 1, QueueStore.truncate(now.plus(leaseDuration)));
        st.setLong(2, lease.jobId().value());
        st.setInt(3, lease.attempt());
        st.setLong(4, lease.token());
        setInstant(st, 5, now);
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            holder = rs.getString(1);
          }
        }
      }
      if (holder != null) {
        collectors.touch(c, holder, now);
        return new LeaseResult(LeaseStatus.OK, Optional.of(jobs.load(c, lease.jobId(), false).orElseThrow()));
      }
      Optional<Job> row = jobs.load(c, lease.jobId(), true);
      LeaseResult refused = fence(row, lease, now);
      if (refused != null) {
        return refused;
      }
      return cancelFlagged(c, row.get(), now); // live and fenced but not renewed: it is flagged
    });
  }

  /**
   * Completes a lease; with a result, the full path runs and writes the result in the same transaction as
   * the job's success, so that neither exists without the other.
   */
  LeaseResult complete(LeaseRef lease, @Nullable ResultPayload result) {
    if (result != null) {
      return fenced("complete", lease, null, (c, current, now) -> completeLocked(c, current, now, result));
    }
    return fenced("complete", lease, c -> completeFast(c, lease, ctx.boundNow()), (c, current, now) ->
        completeLocked(c, current, now, null));
  }

  /** The result of a job. */
  Optional<JobResult> result(JobId id) {
    return ctx.tx.inTransaction("result", c -> {
      try (PreparedStatement st = c.prepareStatement(ctx.sql.resultByJob)) {
        st.setLong(1, id.value());
        try (ResultSet rs = st.executeQuery()) {
          return rs.next() ? Optional.of(result(rs)) : Optional.<JobResult>empty();
        }
      }
    });
  }

  /** The results of a request's jobs, by job id. */
  List<JobResult> results(RequestId id) {
    return ctx.tx.inTransaction("results", c -> {
      List<JobResult> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(ctx.sql.resultsOfRequest)) {
        st.setLong(1, id.value());
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            out.add(result(rs));
          }
        }
      }
      return List.copyOf(out);
    });
  }

  private static JobResult result(ResultSet rs) throws SQLException {
    return JobResult.builder().jobId(JobId.of(rs.getLong(1))).requestId(RequestId.of(rs.getLong(2)))
        .attempt(rs.getInt(3)).collector(rs.getString(4)).storedAt(java.util.Objects.requireNonNull(
            PgValues.instant(rs, 5))).payload(ResultPayload.ofBytes(rs.getBytes(6))).build();
  }

  /**
   * Completes a batch with one auto-committed statement ({@link QueueSql#completeAll}: one round trip, one
   * commit) for every item whose lease is live, fenced and not flagged; each other item (stale, expired,
   * unknown, flagged, or a row that needs the full checks) then runs the full path of {@link #complete} in
   * its own transaction, which reports it exactly as completing it alone would. Each item is atomic; the
   * batch is not one transaction.
   *
   * @param batch the checked batch ({@link LeaseRef#checkedBatch}), at least two items
   */
  List<LeaseResult> completeAll(List<LeaseRef> batch) {
    // The fast statement always answers (possibly with no applied item), so the full work never runs here.
    Map<JobId, LeaseResult> applied = ctx.tx.run("completeAll", c -> completeAllFast(c, batch, ctx.boundNow()),
        c -> completeAllFast(c, batch, ctx.boundNow()));
    List<LeaseResult> results = new ArrayList<>(batch.size());
    for (LeaseRef ref : batch) {
      LeaseResult fast = applied.get(ref.jobId());
      results.add(fast != null ? fast : fenced("complete", ref, null, (c, current, now) -> completeLocked(c,
          current, now, null)));
    }
    return List.copyOf(results);
  }

  LeaseResult fail(LeaseRef lease, Failure failure, int maxTransientRetries) {
    return fenced("fail", lease, null, (c, current, now) -> {
      Lease held = QueueJobs.lease(current);
      Job next;
      if (failure.kind() == Failure.Kind.PERMANENT) {
        next = current.failed(JobFailure.permanent(held.collector(), failure.detail(), now));
      } else if (current.transientRetries() < maxTransientRetries) {
        next = current.retriedAfterTransientFailure(failure.detail());
      } else {
        next = current.failed(JobFailure.transientBudgetExhausted(held.collector(), current.transientRetries(),
            failure.detail(), now));
      }
      jobs.write(c, current, next, now);
      collectors.touch(c, held.collector(), now);
      return new LeaseResult(LeaseStatus.OK, Optional.of(next));
    });
  }

  LeaseResult release(LeaseRef lease) {
    return fenced("release", lease, null, (c, current, now) -> {
      Job next = current.released();
      jobs.write(c, current, next, now);
      collectors.touch(c, QueueJobs.lease(current).collector(), now);
      return new LeaseResult(LeaseStatus.OK, Optional.of(next));
    });
  }

  /** The full completion path once the fence holds and the job is not flagged. */
  private LeaseResult completeLocked(Connection c, Job current, Instant now, @Nullable ResultPayload result)
      throws SQLException {
    Job done = current.succeeded(now);
    Lease held = QueueJobs.lease(current);
    jobs.write(c, current, done, now);
    if (result != null) {
      try (PreparedStatement st = c.prepareStatement(ctx.sql.insertResult)) {
        st.setLong(1, current.id().value());
        st.setLong(2, current.requestId().value());
        st.setInt(3, held.attempt());
        st.setString(4, held.collector());
        setInstant(st, 5, now);
        st.setBytes(6, result.bytes());
        st.executeUpdate();
      }
    }
    collectors.touch(c, held.collector(), now);
    return new LeaseResult(LeaseStatus.OK, Optional.of(done));
  }

  /**
   * Runs {@link QueueSql#complete}; null when the fast path does not apply (stale or expired lease, flagged
   * job, or a row that needs the full checks): it then wrote nothing, and the full path runs.
   */
  private @Nullable LeaseResult completeFast(Connection c, LeaseRef lease, @Nullable Instant now)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement(ctx.sql.complete)) {
      st.setLong(1, lease.jobId().value());
      st.setInt(2, lease.attempt());
      st.setLong(3, lease.token());
      setInstant(st, 4, now);
      setInstant(st, 5, now);
      st.setInt(6, lease.attempt());
      setInstant(st, 7, now);
      setInstant(st, 8, now);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Job done = ctx.rows.job(rs);
        if (rs.getLong(29) != 1) {
          throw ctx.changedUnderLock("end the lease of job " + lease.jobId().value());
        }
        return new LeaseResult(LeaseStatus.OK, Optional.of(done));
      }
    }
  }

  /** Runs {@link QueueSql#completeAll}: the results of the items it applied to, by job. */
  private Map<JobId, LeaseResult> completeAllFast(Connection c, List<LeaseRef> batch, @Nullable Instant now)
      throws SQLException {
    Long[] ids = new Long[batch.size()];
    Integer[] attempts = new Integer[batch.size()];
    Long[] tokenValues = new Long[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      LeaseRef ref = batch.get(i);
      ids[i] = ref.jobId().value();
      attempts[i] = ref.attempt();
      tokenValues[i] = ref.token();
    }
    Map<JobId, LeaseResult> applied = new HashMap<>();
    try (PreparedStatement st = c.prepareStatement(ctx.sql.completeAll)) {
      st.setArray(1, c.createArrayOf("bigint", ids));
      st.setArray(2, c.createArrayOf("integer", attempts));
      st.setArray(3, c.createArrayOf("bigint", tokenValues));
      st.setArray(4, c.createArrayOf("bigint", ids));
      setInstant(st, 5, now);
      setInstant(st, 6, now);
      setInstant(st, 7, now);
      setInstant(st, 8, now);
      long ended = -1;
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          Job done = ctx.rows.job(rs);
          ended = rs.getLong(29);
          applied.put(done.id(), new LeaseResult(LeaseStatus.OK, Optional.of(done)));
        }
      }
      if (!applied.isEmpty() && ended != applied.size()) {
        throw new QueueStoreException("could not end the leases of jobs " + applied.keySet() + " in schema "
            + ctx.schema + ": ended " + ended + " of " + applied.size() + "; a row changed under its lock (edited by"
            + " hand?)");
      }
    }
    return applied;
  }

  /**
   * Runs a fenced operation: the optional one-statement attempt, then the full path, which locks the job,
   * checks the fence, cancels a flagged job, and otherwise runs {@code work}.
   */
  private LeaseResult fenced(String op, LeaseRef lease, PgTransactions.@Nullable OneStatement<LeaseResult> fast,
      LeaseWork work) {
    return ctx.tx.run(op, fast, c -> fencedOn(c, lease, work));
  }

  /** The full path of a fenced operation on the operation's connection: lock, fence, cancel if flagged, work. */
  private LeaseResult fencedOn(Connection c, LeaseRef lease, LeaseWork work) throws SQLException {
    Optional<Job> row = jobs.load(c, lease.jobId(), true);
    Instant now = ctx.now(c);
    LeaseResult refused = fence(row, lease, now);
    if (refused != null) {
      return refused;
    }
    if (row.get().cancelRequested()) {
      return cancelFlagged(c, row.get(), now);
    }
    return work.run(c, row.get(), now);
  }

  /**
   * Completes a lease on the connection of a larger operation ({@code completeAndClaim}), inside its
   * transaction: without a result the one-statement fast path first, else (or when it does not apply) the full
   * fenced path, so the outcome is what {@link #complete} gives.
   */
  LeaseResult completeOn(Connection c, LeaseRef lease, @Nullable ResultPayload result) throws SQLException {
    if (result == null) {
      LeaseResult quick = completeFast(c, lease, ctx.boundNow());
      if (quick != null) {
        return quick;
      }
    }
    return fencedOn(c, lease, (cc, current, now) -> completeLocked(cc, current, now, result));
  }

  /** Null when the job is leased under this live lease, else the refusal to return. */
  private static @Nullable LeaseResult fence(Optional<Job> row, LeaseRef ref, Instant now) {
    if (row.isEmpty()) {
      return new LeaseResult(LeaseStatus.NOT_FOUND, Optional.empty());
    }
    Optional<Lease> lease = row.get().lease();
    if (lease.isEmpty() || !ref.matches(lease.get()) || !lease.get().isLiveAt(now)) {
      return new LeaseResult(LeaseStatus.STALE_LEASE, row);
    }
    return null;
  }

  private LeaseResult cancelFlagged(Connection c, Job job, Instant now) throws SQLException {
    Job cancelled = job.cancelled(now);
    jobs.write(c, job, cancelled, now);
    collectors.touch(c, QueueJobs.lease(job).collector(), now);
    return new LeaseResult(LeaseStatus.CANCELLED, Optional.of(cancelled));
  }
}

package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;
import static dev.cipolicy.postgres.PgValues.setText;

import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobAttempt;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The job rows of {@link PostgresQueueStore}, as the claims, the fenced lease operations and the expiry use
 * them: reading a job with its lease (locked or not), locking queued jobs, writing a job's transition to its
 * job, lease and queued-jobs rows, and drawing lease tokens.
 */
final class QueueJobs {

  private final QueueContext ctx;
  private final QueueSql sql;

  QueueJobs(QueueContext ctx) {
    this.ctx = ctx;
    this.sql = ctx.sql;
  }

  /** The job with this id, read in its own transaction. */
  Optional<Job> job(JobId id) {
    return ctx.tx.inTransaction("job", c -> load(c, id, false));
  }

  /** The jobs of a request, by id, read in one transaction. */
  List<Job> jobs(RequestId requestId) {
    return ctx.tx.inTransaction("jobs", c -> {
      List<Job> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(sql.jobsOfRequest)) {
        st.setLong(1, requestId.value());
        read(st, out);
      }
      return out;
    });
  }

  /** A job with its lease; locked first ({@code FOR UPDATE}) when asked. */
  Optional<Job> load(Connection c, JobId id, boolean lock) throws SQLException {
    if (lock) {
      try (PreparedStatement st = c.prepareStatement(sql.lockJob)) {
        st.setLong(1, id.value());
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
        }
      }
    }
    List<Job> out = new ArrayList<>(1);
    try (PreparedStatement st = c.prepareStatement(sql.jobById)) {
      st.setLong(1, id.value());
      read(st, out);
    }
    return out.isEmpty() ? Optional.empty() : Optional.of(out.get(0));
  }

  /** Runs a query of {@link QueueSql#JOB_COLS} and adds its jobs. */
  void read(PreparedStatement st, List<Job> out) throws SQLException {
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(ctx.rows.job(rs));
      }
    }
  }

  /**
   * Runs a query that locks rows of the queued-jobs table and returns their job ids, then locks and reads
   * each job. A job that is not queued (its state edited by hand) is not a candidate; its row is deleted.
   */
  void lockQueued(Connection c, PreparedStatement lockIds, List<Job> out) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (ResultSet rs = lockIds.executeQuery()) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    for (long id : ids) {
      Optional<Job> job;
      try {
        job = load(c, JobId.of(id), true);
      } catch (ImpossibleRowException e) {
        // E.g. a queued job with a stray lease row: left as it is for the site to report (expireLeases, once
        // the stray lease has expired) and for an operator to repair; the claim takes the other jobs.
        continue;
      }
      if (job.isPresent() && job.get().state() == JobState.QUEUED) {
        out.add(job.get());
      } else {
        try (PreparedStatement st = c.prepareStatement(sql.unlistJob)) {
          st.setLong(1, id);
          st.executeUpdate();
        }
      }
    }
  }

  /** Writes one job's transition at {@code now}. */
  void write(Connection c, Job before, Job after, Instant now) throws SQLException {
    write(c, List.<Job[]>of(new Job[] {before, after}), now);
  }

  /** A job's attempts, oldest first, read in their own transaction. */
  List<JobAttempt> attempts(JobId id) {
    return ctx.tx.inTransaction("attempts", c -> {
      List<JobAttempt> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement(sql.attemptsOfJob)) {
        st.setLong(1, id.value());
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            Integer[] devices = (Integer[]) rs.getArray(3).getArray();
            String outcome = rs.getString(6);
            out.add(JobAttempt.builder().jobId(id).attempt(rs.getInt(1)).collector(rs.getString(2))
                .devices(List.of(devices)).startedAt(Objects.requireNonNull(PgValues.instant(rs, 4)))
                .endedAt(Optional.ofNullable(PgValues.instant(rs, 5)))
                .outcome(Optional.ofNullable(outcome).map(JobAttempt.Outcome::valueOf))
                .error(Optional.ofNullable(rs.getString(7))).build());
          }
        }
      }
      return List.copyOf(out);
    });
  }

  /**
   * Writes job transitions: the job row when its columns changed, the lease row fenced by attempt and token,
   * and the queued-jobs row of a job that stops being queued (first, the order claims lock in). A job that
   * becomes queued gets its queued-jobs row from the database's trigger. A lease that ends completes its
   * attempt's record ({@link JobAttempt#endOf} at {@code now}) and a new lease inserts its attempt's record.
   */
  void write(Connection c, List<Job[]> changes, Instant at) throws SQLException {
    try (PreparedStatement upd = c.prepareStatement(sql.updateJob);
        PreparedStatement endAttempt = c.prepareStatement(sql.endAttempt);
        PreparedStatement startAttempt = c.prepareStatement(sql.insertAttempt);
        PreparedStatement del = c.prepareStatement(sql.deleteLease);
        PreparedStatement ins = c.prepareStatement(sql.insertLease);
        PreparedStatement deq = c.prepareStatement(sql.unlistJob)) {
      int dequeues = 0;
      int updates = 0;
      int deletes = 0;
      int inserts = 0;
      int ends = 0;
      for (Job[] change : changes) {
        Job before = change[0];
        Job after = change[1];
        Optional<JobAttempt.End> end = JobAttempt.endOf(before, after, at);
        if (end.isPresent()) {
          setInstant(endAttempt, 1, end.get().at());
          endAttempt.setString(2, end.get().outcome().name());
          setText(endAttempt, 3, end.get().error());
          endAttempt.setLong(4, after.id().value());
          endAttempt.setInt(5, end.get().attempt());
          endAttempt.addBatch();
          ends++;
        }
        if (before.state() == JobState.QUEUED && after.state() != JobState.QUEUED) {
          deq.setLong(1, after.id().value());
          deq.addBatch();
          dequeues++;
        }
        if (!sameRow(before, after)) {
          upd.setString(1, after.state().name());
          upd.setInt(2, after.attempt());
          upd.setInt(3, after.crashRescues());
          upd.setInt(4, after.transientRetries());
          setText(upd, 5, after.affinity());
          JobFailure f = after.failure().orElse(null);
          setText(upd, 6, f == null ? null : f.reason().name());
          setText(upd, 7, f == null ? null : f.detail());
          setInstant(upd, 8, f == null ? null : f.at());
          setText(upd, 9, after.lastError());
          setInstant(upd, 10, after.finishedAt().orElse(null));
          upd.setLong(11, after.id().value());
          upd.addBatch();
          updates++;
        }
        Lease old = before.lease().orElse(null);
        Lease now = after.lease().orElse(null);
        if (old != null && (now == null || now.token() != old.token())) {
          del.setLong(1, old.jobId().value());
          del.setInt(2, old.attempt());
          del.setLong(3, old.token());
          del.addBatch();
          deletes++;
        }
        if (now != null && (old == null || now.token() != old.token())) {
          ins.setLong(1, now.jobId().value());
          ins.setInt(2, now.attempt());
          ins.setLong(3, now.token());
          setInstant(ins, 4, now.expiresAt());
          ins.setString(5, now.collector());
          ins.setString(6, after.spec().collectorTag());
          ins.setArray(7, c.createArrayOf("int4", now.devices().toArray()));
          ins.addBatch();
          inserts++;
          startAttempt.setLong(1, now.jobId().value());
          startAttempt.setInt(2, now.attempt());
          startAttempt.setString(3, now.collector());
          startAttempt.setArray(4, c.createArrayOf("int4", now.devices().toArray()));
          setInstant(startAttempt, 5, at);
          startAttempt.addBatch();
        }
      }
      if (dequeues > 0) {
        deq.executeBatch();
      }
      if (updates > 0) {
        expectAll(upd.executeBatch(), "update job rows");
      }
      if (deletes > 0) {
        expectAll(del.executeBatch(), "end leases (fenced by job, attempt and token)");
      }
      if (inserts > 0) {
        expectAll(ins.executeBatch(), "insert leases");
        startAttempt.executeBatch();
      }
      if (ends > 0) {
        endAttempt.executeBatch();
      }
    }
  }

  /** Draws {@code n} fresh lease tokens, in increasing order. */
  long[] tokens(Connection c, int n) throws SQLException {
    long[] out = new long[n];
    try (PreparedStatement st = c.prepareStatement(sql.nextTokens)) {
      st.setInt(1, n);
      try (ResultSet rs = st.executeQuery()) {
        for (int i = 0; i < n; i++) {
          rs.next();
          out[i] = rs.getLong(1);
        }
      }
    }
    Arrays.sort(out);
    return out;
  }

  /** The lease of a job read as leased. */
  static Lease lease(Job job) {
    return job.lease().orElseThrow(() -> new QueueStoreException("job " + job.id().value() + " has no lease"));
  }

  private void expectAll(int[] counts, String what) {
    for (int n : counts) {
      if (n == 0) {
        throw ctx.changedUnderLock(what);
      }
    }
  }

  private static boolean sameRow(Job a, Job b) {
    return a.state() == b.state() && a.attempt() == b.attempt() && a.crashRescues() == b.crashRescues()
        && a.transientRetries() == b.transientRetries() && a.affinity().equals(b.affinity())
        && a.failure().equals(b.failure()) && a.lastError().equals(b.lastError())
        && a.finishedAt().equals(b.finishedAt());
  }
}

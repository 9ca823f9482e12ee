package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.LogChunk;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The job logs of {@link PostgresQueueStore}: one {@code job_logs} row per attempt that wrote output, head and
 * tail in two columns. An append locks the live lease of exactly its fence ({@code FOR NO KEY UPDATE}, so the
 * appends of one lease run one at a time), reads the two lengths and the count, and writes what
 * {@link LogWindow#plan} computes with one upsert; nothing is appended when the fence does not hold. Reads
 * take the row and the job in one transaction and apply {@link LogWindow#view}.
 */
final class QueueLogs {

  private final QueueContext ctx;
  private final QueueJobs jobs;
  private final String lockLease;
  private final String upsert;
  private final String read;

  QueueLogs(QueueContext ctx, QueueJobs jobs) {
    this.ctx = ctx;
    this.jobs = jobs;
    String logs = ctx.options.sql("job_logs");
    lockLease = "SELECT octet_length(g.head), octet_length(g.tail) FROM " + ctx.options.sql("leases") + " l LEFT JOIN "
        + logs + " g ON g.job_id = l.job_id AND g.attempt = l.attempt WHERE l.job_id = ? AND l.attempt = ?"
        + " AND l.token = ? AND l.expires_at > ? FOR NO KEY UPDATE OF l";
    upsert = "INSERT INTO " + logs + " AS g (job_id, attempt, head, tail, total_bytes) VALUES (?, ?, ?, ?, ?)"
        + " ON CONFLICT (job_id, attempt) DO UPDATE SET"
        + " head = CASE WHEN octet_length(EXCLUDED.head) > 0 THEN g.head || EXCLUDED.head ELSE g.head END,"
        + " tail = CASE WHEN octet_length(EXCLUDED.tail) > 0 OR ? < octet_length(g.tail)"
        + " THEN substring(g.tail from octet_length(g.tail) - ? + 1) || EXCLUDED.tail ELSE g.tail END,"
        + " total_bytes = g.total_bytes + EXCLUDED.total_bytes";
    read = "SELECT head, tail, total_bytes FROM " + logs + " WHERE job_id = ? AND attempt = ?";
  }

  LeaseStatus append(LeaseRef lease, List<LogChunk> chunks) {
    List<LogChunk> checked = LogWindow.checkAppend(chunks);
    return ctx.tx.inTransaction("append log", c -> {
      Instant now = ctx.now(c);
      int headLength;
      int tailLength;
      try (PreparedStatement st = c.prepareStatement(lockLease)) {
        st.setLong(1, lease.jobId().value());
        st.setInt(2, lease.attempt());
        st.setLong(3, lease.token());
        setInstant(st, 4, now);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            return jobs.load(c, lease.jobId(), false).isPresent() ? LeaseStatus.STALE_LEASE : LeaseStatus.NOT_FOUND;
          }
          headLength = rs.getInt(1);
          tailLength = rs.getInt(2);
        }
      }
      LogWindow.Plan plan = LogWindow.plan(headLength, tailLength, checked);
      if (plan.addedBytes() == 0) {
        return LeaseStatus.OK;
      }
      try (PreparedStatement st = c.prepareStatement(upsert)) {
        st.setLong(1, lease.jobId().value());
        st.setInt(2, lease.attempt());
        st.setBytes(3, plan.headAppend());
        st.setBytes(4, plan.tailAppend());
        st.setLong(5, plan.addedBytes());
        st.setInt(6, plan.keepOldTail());
        st.setInt(7, plan.keepOldTail());
        st.executeUpdate();
      }
      return LeaseStatus.OK;
    });
  }

  Optional<JobLogView> log(JobId id, int attempt, long from) {
    LogWindow.checkRead(id, attempt, from);
    return ctx.tx.inTransaction("read log", c -> {
      Instant now = ctx.now(c);
      Optional<Job> job = jobs.load(c, id, false);
      if (job.isEmpty() || attempt > job.get().attempt()) {
        return Optional.<JobLogView>empty();
      }
      LogWindow window = LogWindow.emptyStore();
      try (PreparedStatement st = c.prepareStatement(read)) {
        st.setLong(1, id.value());
        st.setInt(2, attempt);
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            try {
              window = LogWindow.storeOf(rs.getBytes(1), rs.getBytes(2), rs.getLong(3));
            } catch (InvalidQueueInputException e) {
              throw new ImpossibleRowException(new ImpossibleRow(ctx.options.display("job_logs"), "job_id = "
                  + id.value() + ", attempt = " + attempt, "total_bytes", Long.toString(rs.getLong(3)),
                  e.getMessage()), e);
            }
          }
        }
      }
      return Optional.of(window.view(id, attempt, from, LogWindow.finished(job.get(), attempt, now)));
    });
  }
}

package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.PurgeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The history and purging of {@link PostgresQueueStore}: pages of completed requests newest first, read by
 * keyset from a partial index, each with its failed jobs; and the removal of a closed request
 * with its jobs, their leases, queue rows and results, in one transaction.
 */
final class QueueHistory {

  private static final String ORDER = " ORDER BY r.finished_at DESC, r.id DESC LIMIT ?";

  private final QueueContext ctx;
  private final String firstPage;
  private final String nextPage;
  private final String failedJobs;
  private final String lockByTag;
  private final String leasedJobs;
  private final String unlistQueued;
  private final String unlistGpuQueued;
  private final String deleteResults;
  private final String deleteLeases;
  private final String deleteJobs;
  private final String deleteRequest;

  QueueHistory(QueueContext ctx) {
    this.ctx = ctx;
    QueueSql sql = ctx.sql;
    firstPage = sql.requestsWhere("r.state = 'COMPLETED'" + ORDER);
    nextPage = sql.requestsWhere("r.state = 'COMPLETED' AND (r.finished_at, r.id) < (?, ?)" + ORDER);
    failedJobs = "SELECT " + QueueSql.JOB_COLS + " FROM " + sql.jobs + " j LEFT JOIN " + sql.leases
        + " l ON l.job_id = j.id WHERE j.request_id = ANY (?) AND j.state = 'FAILED' ORDER BY j.id";
    lockByTag = sql.requestsWhere("r.tag = ? FOR UPDATE");
    leasedJobs = "SELECT count(*) FROM " + sql.jobs + " WHERE request_id = ? AND state = 'LEASED'";
    String ofRequest = " WHERE job_id IN (SELECT id FROM " + sql.jobs + " WHERE request_id = ?)";
    unlistQueued = "DELETE FROM " + sql.queued + ofRequest;
    unlistGpuQueued = "DELETE FROM " + sql.gpuQueued + ofRequest;
    deleteResults = "DELETE FROM " + sql.results + ofRequest;
    deleteLeases = "DELETE FROM " + sql.leases + ofRequest;
    deleteJobs = "DELETE FROM " + sql.jobs + " WHERE request_id = ?";
    deleteRequest = "DELETE FROM " + sql.requests + " WHERE id = ?";
  }

  HistoryPage history(int limit, @Nullable HistoryCursor after) {
    return ctx.tx.inTransaction("history", c -> {
      List<Request> requests = new ArrayList<>(Math.min(limit + 1, 64));
      try (PreparedStatement st = c.prepareStatement(after == null ? firstPage : nextPage)) {
        int i = 1;
        if (after != null) {
          setInstant(st, i++, after.finishedAt());
          st.setLong(i++, after.requestId().value());
        }
        st.setInt(i, limit + 1);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            requests.add(ctx.rows.request(rs));
          }
        }
      }
      Map<Long, List<Job>> failed = failedJobs(c, requests);
      List<HistoryEntry> entries = new ArrayList<>(requests.size());
      for (Request r : requests) {
        entries.add(new HistoryEntry(r, failed.getOrDefault(r.id().value(), List.of())));
      }
      return HistoryPage.of(entries, limit);
    });
  }

  /** The failed jobs of the requests, by request id, each list by job id. */
  private Map<Long, List<Job>> failedJobs(Connection c, List<Request> requests) throws SQLException {
    Map<Long, List<Job>> out = new HashMap<>();
    if (requests.isEmpty()) {
      return out;
    }
    Long[] ids = new Long[requests.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = requests.get(i).id().value();
    }
    try (PreparedStatement st = c.prepareStatement(failedJobs)) {
      st.setArray(1, c.createArrayOf("bigint", ids));
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          Job job = ctx.rows.job(rs);
          out.computeIfAbsent(job.requestId().value(), k -> new ArrayList<>()).add(job);
        }
      }
    }
    return out;
  }

  PurgeResult purge(String tag) {
    return ctx.tx.inTransaction("purge", c -> {
      Optional<Request> found;
      try (PreparedStatement st = c.prepareStatement(lockByTag)) {
        st.setString(1, tag);
        try (ResultSet rs = st.executeQuery()) {
          found = rs.next() ? Optional.of(ctx.rows.request(rs)) : Optional.empty();
        }
      }
      if (found.isEmpty()) {
        return PurgeResult.unchanged(PurgeResult.Status.NOT_FOUND, found);
      }
      Request request = found.get();
      if (request.state().isOpen()) {
        return PurgeResult.unchanged(PurgeResult.Status.REQUEST_OPEN, found);
      }
      long id = request.id().value();
      if (count(c, leasedJobs, id) > 0) {
        return PurgeResult.unchanged(PurgeResult.Status.JOB_LEASED, found);
      }
      // The queued rows go first, as in a cancel: a claim locks a queued row before its job, so deleting them
      // waits for a claim in flight. One that leased a job meanwhile makes the request unpurgeable: re-run,
      // and the check above reports it.
      update(c, unlistQueued, id);
      update(c, unlistGpuQueued, id);
      if (count(c, leasedJobs, id) > 0) {
        throw PgTransactions.rerun();
      }
      int results = update(c, deleteResults, id);
      update(c, deleteLeases, id);
      int jobs = update(c, deleteJobs, id);
      update(c, deleteRequest, id);
      return PurgeResult.builder().status(PurgeResult.Status.PURGED).request(found).jobsRemoved(jobs)
          .resultsRemoved(results).build();
    });
  }

  private static long count(Connection c, String sql, long id) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.setLong(1, id);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static int update(Connection c, String sql, long id) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      st.setLong(1, id);
      return st.executeUpdate();
    }
  }
}

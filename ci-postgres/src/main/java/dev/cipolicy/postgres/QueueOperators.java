package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.JobRetry;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import dev.cipolicy.queue.spi.QueueStoreException;
import dev.cipolicy.queue.spi.RetryResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The operator controls of {@link PostgresQueueStore}: retrying a job (its completed request reopened within the
 * cap, serialized with starts by the control row), pausing and resuming pools ({@code paused_pools}) and the
 * operator audit ({@code operator_actions}).
 */
final class QueueOperators {

  private final QueueContext ctx;
  private final QueueSql sql;
  private final QueueJobs jobs;
  private final String actions;
  private final String reopen;
  private final String openOfPr;

  QueueOperators(QueueContext ctx, QueueJobs jobs) {
    this.ctx = ctx;
    this.sql = ctx.sql;
    this.jobs = jobs;
    this.actions = ctx.options.sql("operator_actions");
    // The values Request.reopened() gives: in progress, no finish instant, no outcome, the rest kept.
    this.reopen = "UPDATE " + sql.requests + " SET state = 'IN_PROGRESS', finished_at = NULL, outcome = NULL"
        + " WHERE id = ? AND state = 'COMPLETED'";
    this.openOfPr = sql.requestsWhere("r.kind = ? AND r.pr = ? AND r.state IN " + QueueSql.OPEN + " AND r.id <> ?");
  }

  /** {@link dev.cipolicy.queue.spi.QueueStore#retryJob}, as one transaction. */
  RetryResult retryJob(JobId id, int maxInProgress) {
    return ctx.tx.inTransaction("retryJob", c -> {
      // The control row first, as a start takes it: a reopening and a start never exceed the cap between them.
      try (PreparedStatement lock = c.prepareStatement(sql.lockControl); ResultSet rs = lock.executeQuery()) {
        if (!rs.next()) {
          throw new QueueStoreException("the control row " + ctx.options.display("control")
              + " (id = 1) is missing; re-create it with INSERT INTO " + sql.control + " (id) VALUES (1)");
        }
      }
      Optional<Job> seen = jobs.load(c, id, false);
      if (seen.isEmpty()) {
        return RetryResult.unchanged(RetryResult.Status.NOT_FOUND, null, null);
      }
      // The request before the job, the order a cancellation locks them in.
      Request request = request(c, seen.get().requestId().value(), true);
      Job job = jobs.load(c, id, true).orElseThrow(() -> ctx.changedUnderLock("retry job " + id.value()));
      RetryResult result = JobRetry.decide(job, request, maxInProgress, countInProgress(c),
          request.pr().isPresent() && hasOpenOfPr(c, request));
      if (result.status() != RetryResult.Status.RETRIED) {
        return result;
      }
      jobs.write(c, job, result.job().orElseThrow(), ctx.now(c)); // the trigger lists it as queued
      if (result.reopened()) {
        try (PreparedStatement st = c.prepareStatement(reopen)) {
          st.setLong(1, request.id().value());
          if (st.executeUpdate() != 1) {
            throw ctx.changedUnderLock("reopen request " + request.id().value());
          }
        }
      }
      return result;
    });
  }

  private Request request(Connection c, long id, boolean lock) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.requestsWhere("r.id = ?" + (lock ? " FOR UPDATE" : "")))) {
      st.setLong(1, id);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          throw ctx.changedUnderLock("read request " + id + " of a job");
        }
        return ctx.rows.request(rs);
      }
    }
  }

  private int countInProgress(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql.countInProgress); ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private boolean hasOpenOfPr(Connection c, Request request) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(openOfPr)) {
      st.setString(1, request.kind().name());
      st.setLong(2, request.pr().getAsLong());
      st.setLong(3, request.id().value());
      try (ResultSet rs = st.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** {@link dev.cipolicy.queue.spi.QueueStore#setPoolPaused}, as one statement. */
  boolean setPoolPaused(String pool, boolean paused) {
    return ctx.tx.inTransaction("setPoolPaused", c -> {
      if (paused) {
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + sql.pausedPools + " (pool, paused_at)"
            + " VALUES (?, ?) ON CONFLICT (pool) DO NOTHING")) {
          st.setString(1, pool);
          setInstant(st, 2, ctx.now(c));
          return st.executeUpdate() == 1;
        }
      }
      try (PreparedStatement st = c.prepareStatement("DELETE FROM " + sql.pausedPools + " WHERE pool = ?")) {
        st.setString(1, pool);
        return st.executeUpdate() == 1;
      }
    });
  }

  /** The paused pools. */
  Set<String> pausedPools() {
    return ctx.tx.inTransaction("pausedPools", c -> {
      Set<String> out = new HashSet<>();
      try (PreparedStatement st = c.prepareStatement("SELECT pool FROM " + sql.pausedPools);
          ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return Set.copyOf(out);
    });
  }

  /** {@link OperatorAudit#recordAction}. */
  OperatorAction record(String actor, String action, String target, String result) {
    return ctx.tx.inTransaction("recordAction", c -> {
      Instant now = ctx.now(c);
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + actions
          + " (at, actor, action, target, result) VALUES (?, ?, ?, ?, ?) RETURNING id")) {
        setInstant(st, 1, now);
        st.setString(2, actor);
        st.setString(3, action);
        st.setString(4, target);
        st.setString(5, result);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          return new OperatorAction(rs.getLong(1), now, actor, action, target, result);
        }
      }
    });
  }

  /** {@link OperatorAudit#operatorActions}. */
  List<OperatorAction> actions(int limit) {
    OperatorAudit.checkLimit(limit);
    return ctx.tx.inTransaction("operatorActions", c -> {
      List<OperatorAction> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement("SELECT id, at, actor, action, target, result FROM " + actions
          + " ORDER BY id DESC LIMIT ?")) {
        st.setInt(1, limit);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            out.add(new OperatorAction(rs.getLong(1), Objects.requireNonNull(PgValues.instant(rs, 2)),
                rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6)));
          }
        }
      }
      return out;
    });
  }
}

package dev.cipolicy.postgres;

import static dev.cipolicy.postgres.PgValues.setInstant;

import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Expiry and maintenance of {@link PostgresQueueStore}: processing expired leases (for a claim, those of its
 * tag; for the site's {@code expireLeases}, all of them) and the opportunistic vacuum of the two tables every
 * claim and completion churn.
 */
final class QueueExpiry {

  /** Dead rows in the queued-jobs or the leases table from which {@code expireLeases} vacuums them. */
  static final long VACUUM_DEAD_ROWS = 5_000;

  private final QueueContext ctx;
  private final QueueJobs jobs;
  private volatile @Nullable String maintenanceProblem;

  QueueExpiry(QueueContext ctx, QueueJobs jobs) {
    this.ctx = ctx;
    this.jobs = jobs;
  }

  /** Processes every expired lease in one transaction, then vacuums the churning tables if due. */
  ExpiryResult expireLeases(int maxCrashRescues) {
    ExpiryResult result = ctx.tx.inTransaction("expireLeases", c -> {
      Instant now = ctx.now(c);
      List<List<Job>> changes = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      List<ImpossibleRow> impossible = new ArrayList<>();
      expire(c, null, now, maxCrashRescues, changes, impossible);
      Comparator<Job> byId = Comparator.comparing(Job::id);
      changes.forEach(list -> list.sort(byId));
      return ExpiryResult.builder().rescued(changes.get(0)).failed(changes.get(1)).cancelled(changes.get(2))
          .impossibleRows(impossible).build();
    });
    vacuumIfNeeded();
    return result;
  }

  /**
   * Processes expired leases (of one tag, or all when null), locking their rows; collects the changes if
   * asked (rescued, failed, cancelled). A job whose rows are impossible (edited by hand) is left unchanged and
   * added to {@code impossible}, so that it never blocks the others.
   */
  void expire(Connection c, @Nullable String tag, Instant now, int maxCrashRescues,
      @Nullable List<List<Job>> changes, List<ImpossibleRow> impossible) throws SQLException {
    List<Job> expired = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(tag == null ? ctx.sql.expiredLeases
        : ctx.sql.expiredLeasesOfTag)) {
      int i = 1;
      if (tag != null) {
        st.setString(i++, tag);
      }
      setInstant(st, i, now);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          try {
            expired.add(ctx.rows.job(rs));
          } catch (ImpossibleRowException e) {
            impossible.add(e.row());
          }
        }
      }
    }
    if (expired.isEmpty()) {
      return;
    }
    List<Job[]> writes = new ArrayList<>(expired.size());
    for (Job job : expired) {
      Lease lease = QueueJobs.lease(job);
      Job next;
      int list;
      if (job.cancelRequested()) {
        next = job.cancelled(now);
        list = 2;
      } else if (job.crashRescues() < maxCrashRescues) {
        next = job.rescued();
        list = 0;
      } else {
        next = job.failed(JobFailure.crashBudgetExhausted(lease.collector(), job.crashRescues(),
            lease.expiresAt(), now));
        list = 1;
      }
      writes.add(new Job[] {job, next});
      if (changes != null) {
        changes.get(list).add(next);
      }
    }
    jobs.write(c, writes, now);
  }

  /**
   * Vacuums the queued-jobs and leases tables when either holds at least {@link #VACUUM_DEAD_ROWS} dead rows
   * (the server's statistics, {@code pg_stat_user_tables.n_dead_tup}); the site loop calls this through
   * {@link #expireLeases} on every tick. Both tables churn: every claim deletes queued rows, every completion
   * a lease row. Claims read the queued rows from the start of their index, where the deleted rows' entries
   * pile up until a vacuum removes them, and autovacuum visits a database at most once a minute (its
   * {@code naptime}); under a sustained backlog a minute of claims leaves hundreds of thousands of such
   * entries, and a claim's cost grows with them (docs/performance.md). Never fails the caller: a vacuum that
   * cannot run (a role that does not own the tables, a lost connection) is left to autovacuum, and
   * {@link #maintenanceProblem()} says why.
   *
   * @return whether a vacuum ran
   */
  boolean vacuumIfNeeded() {
    QueueSql sql = ctx.sql;
    try {
      boolean due = ctx.tx.autoCommitted("vacuum", c -> {
        boolean needed;
        try (PreparedStatement st = c.prepareStatement(sql.deadRows)) {
          st.setString(1, sql.queued);
          st.setString(2, sql.leases);
          try (ResultSet rs = st.executeQuery()) {
            needed = rs.next() && rs.getLong(1) >= VACUUM_DEAD_ROWS;
          }
        }
        if (needed) {
          try (Statement st = c.createStatement()) {
            st.execute(sql.vacuum);
          }
        }
        return needed;
      });
      maintenanceProblem = null;
      return due;
    } catch (QueueStoreException e) {
      maintenanceProblem = "vacuuming " + ctx.options.display("queued") + " and " + ctx.options.display("leases")
          + " failed: " + e.getMessage() + "; autovacuum still does it";
      return false;
    }
  }

  /** Why the last opportunistic vacuum could not run, if it could not. */
  Optional<String> maintenanceProblem() {
    return Optional.ofNullable(maintenanceProblem);
  }
}

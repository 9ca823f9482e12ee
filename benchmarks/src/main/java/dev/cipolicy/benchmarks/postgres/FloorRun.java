package dev.cipolicy.benchmarks.postgres;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.jspecify.annotations.Nullable;

/**
 * The floor of a one-job-at-a-time queue: the least work any fenced, first-in-first-out queue on PostgreSQL can
 * do per job when each collector takes one job at a time. Not a queue anyone should use: no collectors, no
 * heartbeats, no expiry, no retries, no devices, no shares, no results. What is left is what cannot be left
 * out: each collector thread runs one auto-committed statement per job that completes its previous job
 * (fenced by job and token, only while its lease is live) and claims the next one (the oldest queued job of
 * its tag that no other claim holds, {@code FOR UPDATE SKIP LOCKED}), leasing it with a fresh token and an
 * expiry. One statement, one round trip and one commit per job.
 *
 * <p>Three layouts:
 * <ul>
 *   <li>{@code floor-list}: queued jobs listed in a narrow table of their own (job, tag) that a claim deletes
 *       from, as {@code PostgresQueueStore} lists them; the job row's indexed columns never change, so its two
 *       updates are heap-only. Per job: the job row inserted and updated twice, the list row inserted and
 *       deleted (5 row writes).
 *   <li>{@code floor-one-table}: no list; claims read a partial index of the job table ({@code WHERE state =
 *       'QUEUED'}), so every claim leaves a dead entry at the index's head that later claims step over until a
 *       vacuum (3 row writes).
 *   <li>{@code floor-lease-table}: {@code floor-list} with the lease in a table of its own, shaped like the
 *       store's (job, attempt, token unique, expiry, holder, tag; indexed by job, token and tag with expiry):
 *       the claim inserts the lease row and the completion deletes it (5 row writes). It tells what a separate
 *       lease table costs.
 * </ul>
 * Jobs are inserted before the measurement; a site thread vacuums the churned table every second, as the
 * store's site tick does. The first {@code lead} completions are not measured (see {@link Window}).
 */
final class FloorRun {
  private static final String TAG = "bench";

  private FloorRun() {
  }

  /** How a floor run lays out its tables. */
  enum Layout {
    LIST, ONE_TABLE, LEASE_TABLE
  }

  static RunResult run(BenchDatabase db, String system, Layout layout, int threads, int lead, int jobs, int round) {
    boolean list = layout != Layout.ONE_TABLE;
    int total = lead + jobs;
    String schema = BenchDatabase.freshSchema("bench_floor");
    String jobsTable = schema + ".jobs";
    String queued = schema + ".queued";
    String tokens = schema + ".tokens";
    String leases = schema + ".leases";
    try {
      db.exec("CREATE SCHEMA " + schema);
      db.exec("CREATE SEQUENCE " + tokens);
      db.exec("CREATE TABLE " + jobsTable + " (id bigint PRIMARY KEY, tag text NOT NULL, state text NOT NULL,"
          + " attempt integer NOT NULL DEFAULT 0, token bigint, expires_at timestamptz, collector text,"
          + " created_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz) WITH (fillfactor = 50)");
      db.exec("INSERT INTO " + jobsTable + " (id, tag, state) SELECT g, '" + TAG + "', 'QUEUED'"
          + " FROM generate_series(1, " + total + ") g");
      String claimNext;
      String churned;
      if (list) {
        db.exec("CREATE TABLE " + queued + " (job_id bigint PRIMARY KEY, tag text NOT NULL)");
        db.exec("CREATE INDEX ON " + queued + " (tag, job_id)");
        db.exec("INSERT INTO " + queued + " SELECT id, tag FROM " + jobsTable);
        claimNext = "nxt AS (DELETE FROM " + queued + " WHERE job_id = (SELECT job_id FROM " + queued
            + " WHERE tag = ? ORDER BY job_id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING job_id AS id)";
        churned = queued;
      } else {
        db.exec("CREATE INDEX ON " + jobsTable + " (tag, id) WHERE state = 'QUEUED'");
        claimNext = "nxt AS (SELECT id FROM " + jobsTable + " WHERE tag = ? AND state = 'QUEUED' ORDER BY id"
            + " LIMIT 1 FOR UPDATE SKIP LOCKED)";
        churned = jobsTable;
      }
      db.exec("VACUUM ANALYZE " + jobsTable);
      if (list) {
        db.exec("VACUUM ANALYZE " + queued);
      }
      String sql;
      if (layout == Layout.LEASE_TABLE) {
        db.exec("CREATE TABLE " + leases + " (job_id bigint PRIMARY KEY, attempt integer NOT NULL,"
            + " token bigint NOT NULL UNIQUE, expires_at timestamptz NOT NULL, collector text NOT NULL,"
            + " tag text NOT NULL) WITH (fillfactor = 70)");
        db.exec("CREATE INDEX ON " + leases + " (tag, expires_at)");
        sql = "WITH l AS (SELECT job_id FROM " + leases + " WHERE job_id = ? AND token = ? AND expires_at > now()"
            + " FOR UPDATE), done AS (UPDATE " + jobsTable + " j SET state = 'SUCCEEDED', finished_at = now()"
            + " FROM l WHERE j.id = l.job_id AND j.state = 'LEASED' RETURNING j.id),"
            + " ended AS (DELETE FROM " + leases + " x USING done WHERE x.job_id = done.id RETURNING x.job_id), "
            + claimNext + ","
            + " claimed AS (UPDATE " + jobsTable + " j SET state = 'LEASED', attempt = j.attempt + 1"
            + " FROM nxt WHERE j.id = nxt.id AND j.state = 'QUEUED' RETURNING j.id, j.attempt,"
            + " nextval('" + tokens + "') AS token),"
            + " leased AS (INSERT INTO " + leases + " (job_id, attempt, token, expires_at, collector, tag)"
            + " SELECT id, attempt, token, now() + interval '10 minutes', ?, '" + TAG + "' FROM claimed"
            + " RETURNING job_id AS id, token)"
            + " SELECT (SELECT count(*) FROM ended), (SELECT id FROM leased), (SELECT token FROM leased)";
      } else {
        sql = "WITH done AS (UPDATE " + jobsTable + " SET state = 'SUCCEEDED', finished_at = now(),"
            + " token = NULL, expires_at = NULL, collector = NULL WHERE id = ? AND token = ? AND state = 'LEASED'"
            + " AND expires_at > now() RETURNING id), " + claimNext + ","
            + " leased AS (UPDATE " + jobsTable + " j SET state = 'LEASED', attempt = j.attempt + 1,"
            + " token = nextval('" + tokens + "'), expires_at = now() + interval '10 minutes', collector = ?"
            + " FROM nxt WHERE j.id = nxt.id AND j.state = 'QUEUED' RETURNING j.id, j.token)"
            + " SELECT (SELECT count(*) FROM done), (SELECT id FROM leased), (SELECT token FROM leased)";
      }
      HikariDataSource pool = db.pool("floor", threads + 2);
      CountingDataSource counting = new CountingDataSource(pool);
      BenchDatabase.ServerStats serverBefore = db.stats(schema);
      double loadBefore = Load.now();
      Window window = new Window(lead, total, counting);
      @Nullable Throwable failure = StoreRun.drain(threads, "floor", window, t -> {
        String name = "c" + t;
        long job = -1;
        long token = -1;
        while (true) {
          try (Connection c = counting.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
            st.setLong(1, job);
            st.setLong(2, token);
            st.setString(3, TAG);
            st.setString(4, name);
            try (ResultSet rs = st.executeQuery()) {
              rs.next();
              long completed = rs.getLong(1);
              if (job >= 0 && completed != 1) {
                throw new IllegalStateException("completing job " + job + " changed " + completed + " rows");
              }
              if (job >= 0) {
                window.completed(1);
              }
              job = rs.getLong(2);
              if (rs.wasNull()) {
                return;
              }
              token = rs.getLong(3);
            }
          }
        }
      }, () -> db.exec("VACUUM " + churned));
      double loadAfter = Load.now();
      db.closeAndAwaitGone(pool);
      BenchDatabase.ServerStats server = db.stats(schema).minus(serverBefore);
      if (failure != null) {
        throw new IllegalStateException(system + " failed: " + failure, failure);
      }
      long succeeded = db.queryLong("SELECT count(*) FROM " + jobsTable + " WHERE state = 'SUCCEEDED'");
      if (window.count() != total || succeeded != total) {
        throw new IllegalStateException(system + ": " + window.count() + " completions and " + succeeded
            + " succeeded jobs, expected " + total);
      }
      return new RunResult(system, threads, round, window.jobs(), window.seconds(), total, window.client(), server,
          loadBefore, loadAfter);
    } finally {
      db.dropSchema(schema);
    }
  }
}

package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.CompleteAndClaimResult;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import dev.cipolicy.queue.tck.SettableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The queued-jobs table: claims read only it, the database's triggers list every job that becomes queued
 * (also by hand), a row whose job is no longer queued is never claimed and is cleared, a queued job missing
 * from it is reported, and a claim's cost does not grow with the finished jobs the table keeps.
 */
class QueuedJobsTableTest {

  private final SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
  private final QueueSettings settings = QueueSettings.builder().maxInProgress(2).leaseDuration(Duration.ofMinutes(1))
      .collectorTimeout(Duration.ofMinutes(5)).backfill(false).addBenchmarkGroups("compile", "unit", "e2e")
      .addCollectorTargets(CollectorTarget.required("x86")).build();
  private @Nullable PgTestDatabase db;
  private PostgresQueueStore store;
  private JobQueue queue;
  private String s;

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("queued", 4);
    store = PostgresQueueStore.createOnClock(db.dataSource, db.schema, clock);
    queue = JobQueue.of(store, settings);
    s = db.schema;
  }

  @AfterEach
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void everyQueuedJobIsListedAndClaimsEmptyTheList() {
    queue.registerCollector("c1", "x86", true);
    queue.submit(NewRequest.master("m1", null));
    queue.tick();
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued ORDER BY 1")).containsExactly(1L, 2L, 3L);
    List<Claim> claims = queue.claim("c1", 2).claims();
    assertThat(claims).extracting(c -> c.job().id().value()).containsExactly(1L, 2L);
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued ORDER BY 1")).containsExactly(3L);
    // A lost lease puts the job back: the trigger lists it again, with the affinity the rescue gives it.
    clock.advance(Duration.ofMinutes(2));
    TickResult tick = queue.tick();
    assertThat(tick.expired().rescued()).hasSize(2);
    assertThat(strings("SELECT job_id || ' ' || collector_tag || ' ' || coalesce(affinity, '-') FROM " + s
        + ".queue_queued ORDER BY job_id")).containsExactly("1 x86 c1", "2 x86 c1", "3 x86 -");
    // Cancelling the request empties the list for its jobs.
    assertThat(queue.cancel(claims.get(0).job().requestId(), "superseded").status().name()).isEqualTo("CANCELLED");
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued")).isEmpty();
  }

  @Test
  void aJobRequeuedByHandIsClaimableAndAJobFinishedByHandIsNeverClaimed() {
    queue.registerCollector("c1", "x86", true);
    Request m1 = queue.submit(NewRequest.master("m1", null)).request();
    queue.tick();
    Claim first = queue.claim("c1").claims().get(0);
    assertThat(queue.fail(first.lease(), dev.cipolicy.queue.model.Failure.permanent("segfault")).ok()).isTrue();
    // By hand: job 2 is "finished" while queued, job 1 (failed) is put back in the queue.
    db.exec("UPDATE " + s + ".queue_jobs SET state = 'CANCELLED', finished_at = now() WHERE id = 2");
    db.exec("UPDATE " + s + ".queue_jobs SET state = 'QUEUED', failure_reason = NULL, failure_detail = NULL,"
        + " failure_at = NULL, finished_at = NULL WHERE id = 1");
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued ORDER BY 1")).containsExactly(1L, 2L, 3L);

    // The fast path (this store has seen c1) claims 1 and 3 and clears 2's row.
    List<Claim> claims = queue.claim("c1", 3).claims();
    assertThat(claims).extracting(c -> c.job().id().value()).containsExactly(1L, 3L);
    assertThat(claims).extracting(c -> c.job().state()).containsOnly(JobState.LEASED);
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued")).isEmpty();
    assertThat(store.job(dev.cipolicy.queue.model.JobId.of(2)).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    assertThat(m1.id().value()).isEqualTo(1L);
  }

  @Test
  void theFullClaimPathAlsoSkipsAndClearsARowWhoseJobIsNotQueued() {
    queue.registerCollector("c1", "x86", true);
    queue.submit(NewRequest.master("m1", null));
    queue.tick();
    db.exec("UPDATE " + s + ".queue_jobs SET state = 'CANCELLED', finished_at = now() WHERE id = 1");
    // A fresh store has not learnt c1's tag, so its first claim takes the full transaction.
    JobQueue fresh = JobQueue.of(PostgresQueueStore.attachOnClock(db.dataSource, s, clock), settings);
    assertThat(fresh.claim("c1", 1).claims()).extracting(c -> c.job().id().value()).containsExactly(2L);
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued ORDER BY 1")).containsExactly(3L);
  }

  @Test
  void aQueuedJobMissingFromTheListIsReportedByTheSiteLoopUntilListedAgain() {
    queue.registerCollector("c1", "x86", true);
    Request m1 = queue.submit(NewRequest.master("m1", null)).request();
    queue.tick();
    db.exec("DELETE FROM " + s + ".queue_queued WHERE job_id = 2");
    ImpossibleRow row = new ImpossibleRow(s + ".queue_jobs", "id = 2", "state", "'QUEUED'", "a queued job is listed"
        + " in " + s + ".queue_queued, which claims read, but job 2 of request " + m1.id().value() + " is not, so no"
        + " collector can claim it; list it with INSERT INTO " + s + ".queue_queued (job_id, collector_tag,"
        + " affinity) SELECT id, collector_tag, affinity FROM " + s + ".queue_jobs WHERE id = 2");
    // The check reads every job of the requests in progress, so a store runs it in one request scan of ten.
    List<ImpossibleRow> reported = new ArrayList<>();
    for (int i = 0; i < QueueRequests.UNLISTED_CHECK_EVERY && reported.isEmpty(); i++) {
      reported.addAll(queue.tick().impossibleRows());
    }
    assertThat(reported).containsExactly(row);
    List<ImpossibleRow> inStatus = new ArrayList<>();
    for (int i = 0; i < QueueRequests.UNLISTED_CHECK_EVERY && inStatus.isEmpty(); i++) {
      inStatus.addAll(queue.status().impossibleRows());
    }
    assertThat(inStatus).containsExactly(row);
    assertThat(queue.claim("c1", 5).claims()).extracting(c -> c.job().id().value()).containsExactly(1L, 3L);

    // The runbook's repair lists it again; the next claim gets it and the report is gone.
    db.exec("INSERT INTO " + s + ".queue_queued (job_id, collector_tag, affinity) SELECT id, collector_tag, affinity"
        + " FROM " + s + ".queue_jobs WHERE id = 2");
    for (int i = 0; i < QueueRequests.UNLISTED_CHECK_EVERY; i++) {
      assertThat(queue.tick().impossibleRows()).isEmpty();
    }
    assertThat(queue.claim("c1", 5).claims()).extracting(c -> c.job().id().value()).containsExactly(2L);
  }

  @Test
  void aQueuedJobWithAStrayLeaseRowIsSkippedByClaimsAndReportedOnceTheLeaseHasExpired() {
    queue.registerCollector("c1", "x86", true);
    queue.submit(NewRequest.master("m1", null));
    queue.tick();
    assertThat(queue.claim("c1", 1).claims()).extracting(c -> c.job().id().value()).containsExactly(1L);
    // By hand, job 2 (queued) gets a lease row: the claim statement would insert a second lease for it.
    db.exec("INSERT INTO " + s + ".queue_leases (job_id, attempt, token, expires_at, collector, collector_tag)"
        + " VALUES (2, 1, 999, '2026-01-05T09:01:00Z', 'c9', 'x86')");

    // The claim takes the other jobs (the fast statement fails on the duplicate lease and changes nothing;
    // the full path skips job 2).
    assertThat(queue.claim("c1", 5).claims()).extracting(c -> c.job().id().value()).containsExactly(3L);
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued")).containsExactly(2L);

    // Once the stray lease has expired, the site reports the job on every tick and leaves it alone.
    clock.advance(Duration.ofMinutes(2));
    ImpossibleRow row = new ImpossibleRow(s + ".queue_jobs", "id = 2", "state", "'QUEUED'", "a queued job has no"
        + " lease, but " + s + ".queue_leases holds one (job_id = 2, attempt 1, token 999, collector c9)");
    TickResult tick = queue.tick();
    assertThat(tick.expired().impossibleRows()).containsExactly(row);
    assertThat(queue.tick().impossibleRows()).containsExactly(row);
    // The runbook's repair (delete the stray lease row): the job is claimable again, after 1 and 3, whose
    // leases expired too and which came back with affinity to c1.
    db.exec("DELETE FROM " + s + ".queue_leases WHERE job_id = 2");
    assertThat(queue.claim("c1", 5).claims()).extracting(c -> c.job().id().value()).containsExactly(1L, 3L, 2L);
    assertThat(queue.tick().impossibleRows()).isEmpty();
  }

  @Test
  void completeAndClaimSkipsAQueuedJobWithAStrayLeaseRowAndStillCompletesInTheSameTransaction() {
    queue.registerCollector("c1", "x86", true);
    queue.submit(NewRequest.master("m1", null));
    queue.tick();
    Claim first = queue.claim("c1", 1).claims().get(0);
    assertThat(first.job().id().value()).isEqualTo(1L);
    db.exec("INSERT INTO " + s + ".queue_leases (job_id, attempt, token, expires_at, collector, collector_tag)"
        + " VALUES (2, 1, 999, '2026-01-05T09:01:00Z', 'c9', 'x86')");

    // The claim's fast statement fails on the duplicate lease, which aborts the combined transaction; the
    // re-run completes job 1 again (its first try was rolled back) and claims with the full path, skipping 2.
    CompleteAndClaimResult got = queue.completeAndClaim(first.lease(), 5);
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(got.claims()).extracting(c -> c.job().id().value()).containsExactly(3L);
    assertThat(strings("SELECT id || ' ' || state FROM " + s + ".queue_jobs ORDER BY id")).containsExactly(
        "1 SUCCEEDED", "2 QUEUED", "3 LEASED");
    assertThat(longs("SELECT job_id FROM " + s + ".queue_leases ORDER BY 1")).containsExactly(2L, 3L);
  }

  @Test
  void aClaimReadsTheQueuedJobsNotTheFinishedOnes() throws SQLException {
    // 10,000 jobs queued, statistics taken while all are queued (as after a large enqueue), then all but ten
    // finished: the claim must not walk the finished ones. (Version 3 claimed through a partial index on the
    // job rows; with such statistics the planner walked the primary key past every finished job, and joined
    // the picked rows against the whole table: hundreds of pages here, growing with the history.)
    assertThat(registerAndStart("big", 10_000).jobs()).hasSize(10_000);
    db.exec("ANALYZE " + s + ".queue_jobs");
    db.exec("ANALYZE " + s + ".queue_queued");
    for (int done = 0; done < 9_990; ) {
      List<dev.cipolicy.queue.model.Lease> leases = new ArrayList<>();
      for (Claim c : queue.claim("c1", Math.min(500, 9_990 - done)).claims()) {
        leases.add(c.lease());
      }
      assertThat(queue.completeAll(leases)).allMatch(r -> r.ok());
      done += leases.size();
    }
    assertThat(longs("SELECT count(*) FROM " + s + ".queue_queued")).containsExactly(10L);

    ClaimCommand command = ClaimCommand.builder().collector("c1").leaseDuration(Duration.ofMinutes(1))
        .collectorTimeout(Duration.ofMinutes(5)).maxCrashRescues(3).limit(5).build();
    String plan;
    try (Connection c = db.dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement st = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "
          + store.claimStatement())) {
        store.bindClaim(st, 1, command, "x86", clock.instant());
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          plan = rs.getString(1);
        }
      } finally {
        c.rollback();
      }
    }
    // It claimed five and touched about 110 pages (the leases and their indexes, the foreign-key checks, the
    // sequence, the collector); the 10,000 job rows alone take about 300 pages at fillfactor 50, so a claim
    // that walked them could not stay under 250.
    assertThat(plan).contains("\"Actual Rows\": 5");
    assertThat(plan).doesNotContainPattern("\"Node Type\": \"Seq Scan\",[^}]*\"Relation Name\": \"queue_jobs\"");
    Matcher hits = Pattern.compile("\"Shared Hit Blocks\": (\\d+)").matcher(plan);
    assertThat(hits.find()).isTrue();
    assertThat(Long.parseLong(hits.group(1))).isLessThan(250L);
    assertThat(plan).contains("\"Relation Name\": \"queue_jobs\"");
  }

  @Test
  void theSiteLoopVacuumsTheChurningTablesOnceThousandsOfTheirRowsAreDead() throws Exception {
    assertThat(registerAndStart("churn", 6_000).jobs()).hasSize(6_000);
    for (int done = 0; done < 6_000; done += 500) {
      List<dev.cipolicy.queue.model.Lease> leases = new ArrayList<>();
      for (Claim c : queue.claim("c1", 500).claims()) {
        leases.add(c.lease());
      }
      assertThat(queue.completeAll(leases)).hasSize(500);
    }
    assertThat(QueueExpiry.VACUUM_DEAD_ROWS).isLessThanOrEqualTo(6_000L);
    String stats = "SELECT coalesce(sum(vacuum_count), 0) FROM pg_stat_user_tables WHERE relid IN ('" + s
        + ".queue_queued'::regclass, '" + s + ".queue_leases'::regclass)";
    // The statistics of the sessions that deleted the rows reach the server within seconds; every tick checks.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (longs(stats).get(0) == 0 && System.nanoTime() < deadline) {
      queue.tick();
      Thread.sleep(200);
    }
    // vacuum_count counts explicit VACUUMs only (autovacuum has its own counter): this one is the store's.
    assertThat(longs(stats).get(0)).isGreaterThanOrEqualTo(1L);
    assertThat(store.maintenanceProblem()).isEmpty();
    assertThat(strings("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = '" + s
        + ".queue_queued'::regclass")).containsExactly(
            "autovacuum_vacuum_scale_factor=0,autovacuum_vacuum_threshold=5000,autovacuum_vacuum_cost_delay=0");
  }

  /** Registers collector c1 (x86) and starts a request with one job per group g0, g1, ... directly. */
  private StartResult registerAndStart(String tag, int jobs) {
    queue.registerCollector("c1", "x86", true);
    RequestId id = queue.submit(NewRequest.master(tag, null)).request().id();
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      specs.add(JobSpec.required("g" + i, "x86"));
    }
    return store.startRequest(StartCommand.builder().requestId(id).jobs(specs).maxInProgress(2).build());
  }

  private List<Long> longs(String sql) {
    return db.longs(sql);
  }

  private List<String> strings(String sql) {
    return db.strings(sql);
  }
}

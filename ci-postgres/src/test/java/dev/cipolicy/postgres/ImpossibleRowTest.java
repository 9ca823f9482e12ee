package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.QueueStatus;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.ImpossibleRowException;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.tck.SettableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rows edited by hand into impossible states. The database refuses every single-row impossibility (CHECK
 * constraints of migration V2); what no CHECK can express (rules across rows), or a schema whose constraints
 * were dropped, is reported by the reader with table, row key, column and value; and the site loop
 * ({@link JobQueue#tick()}, {@link JobQueue#status()}) reports such rows as values and keeps serving the
 * other requests.
 */
class ImpossibleRowTest {

  private static @Nullable PgTestDatabase db;
  private static @Nullable PostgresQueueOptions strict;
  private static @Nullable PostgresQueueOptions loose;

  private final SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
  private final QueueSettings settings = QueueSettings.builder().maxInProgress(2).leaseDuration(Duration.ofMinutes(1))
      .collectorTimeout(Duration.ofMinutes(5)).backfill(false).addBenchmarkGroups("compile")
      .addCollectorTargets(CollectorTarget.required("x86")).build();
  private PostgresQueueStore store;
  private JobQueue queue;

  @BeforeEach
  void setUp() {
    if (db == null) {
      db = PgTestDatabase.open("impossible", 4);
      strict = PostgresQueueOptions.inSchema(db.schema);
      loose = strict.withTablePrefix("loose_");
      PostgresQueueStore.createOnClock(db.dataSource, strict, clock);
      PostgresQueueStore.createOnClock(db.dataSource, loose, clock);
      // The loose tables stand for a schema a host migrated with its own tool and without our CHECKs.
      db.exec("DO $$ DECLARE c record; BEGIN FOR c IN SELECT conrelid::regclass AS t, conname FROM pg_constraint"
          + " WHERE contype = 'c' AND connamespace = '" + db.schema + "'::regnamespace"
          + " AND conrelid::regclass::text LIKE '%loose_%' LOOP"
          + " EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.t, c.conname); END LOOP;"
          // ... and without the rules of its domains (the columns that never change).
          + " FOR c IN SELECT contypid::regtype AS d, conname FROM pg_constraint WHERE contype = 'c'"
          + " AND connamespace = '" + db.schema + "'::regnamespace AND contypid::regtype::text LIKE '%loose_%' LOOP"
          + " EXECUTE format('ALTER DOMAIN %s DROP CONSTRAINT %I', c.d, c.conname); END LOOP; END $$");
    }
    for (String prefix : List.of("queue_", "loose_")) {
      String t = db.schema + "." + prefix;
      db.exec("TRUNCATE " + t + "job_logs, " + t + "job_attempts, " + t + "held_devices, " + t + "collector_devices, " + t + "gpu_queued, "
          + t + "results, "
          + t + "queued, " + t + "leases, " + t + "jobs, " + t + "requests, " + t + "collectors, " + t + "reservations"
          + " RESTART IDENTITY");
    }
    store = PostgresQueueStore.attachOnClock(db.dataSource, strict, clock);
    queue = JobQueue.of(store, settings);
  }

  @AfterAll
  static void dropSchema() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  @Test
  void theDatabaseRefusesEverySingleRowImpossibility() {
    Request master = queue.submit(NewRequest.master("m1", null)).request();
    Request release = queue.submit(NewRequest.release("v1")).request();
    queue.registerCollector("c1", "x86", true);
    queue.tick();
    Claim claim = queue.claim("c1").claims().get(0);
    long job = claim.job().id().value();
    String s = db.schema;
    String jobs = "UPDATE " + s + ".queue_jobs SET ";
    String reqs = "UPDATE " + s + ".queue_requests SET ";
    Map<String, String> refused = new java.util.LinkedHashMap<>();
    refused.put(jobs + "attempt = -1 WHERE id = " + job, "job_attempt_not_negative");
    refused.put(jobs + "crash_rescues = -2 WHERE id = " + job, "job_crash_rescues_not_negative");
    refused.put(jobs + "state = 'SUCCEEDED' WHERE id = " + job, "job_finished_at_iff_terminal");
    refused.put(jobs + "state = 'FAILED', finished_at = now() WHERE id = " + job, "job_failure_iff_failed");
    refused.put(jobs + "state = 'FAILED', finished_at = now(), failure_reason = 'BOOM', failure_detail = 'x',"
        + " failure_at = now() WHERE id = " + job, "job_failure_reason_known");
    refused.put(jobs + "attempt = 0 WHERE id = " + job, "job_leased_was_claimed");
    refused.put(jobs + "collector_tag = 'x 86' WHERE id = " + job, "name_plain");
    refused.put(jobs + "gpus = 300 WHERE id = " + job, "gpu_count_range");
    refused.put(jobs + "estimate_micros = -1 WHERE id = " + job, "micros_range");
    refused.put(reqs + "state = 'COMPLETED', finished_at = now() WHERE id = " + master.id().value(),
        "request_outcome_iff_completed");
    refused.put(reqs + "started_at = NULL WHERE id = " + master.id().value(), "request_started_at");
    refused.put(reqs + "kind = 'NIGHTLY' WHERE id = " + master.id().value(), "request_kind_known");
    refused.put(reqs + "tag = 'v 2' WHERE id = " + release.id().value(), "request_tag_plain");
    refused.put(reqs + "pr = 7 WHERE id = " + release.id().value(), "request_release_has_no_parent_or_pr");
    refused.put(reqs + "benchmark_groups = ARRAY['compile', NULL] WHERE id = " + release.id().value(),
        "request_groups_plain");
    refused.put("UPDATE " + s + ".queue_leases SET attempt = 0 WHERE job_id = " + job, "lease_attempt_positive");
    refused.put("UPDATE " + s + ".queue_collectors SET name = '' WHERE name = 'c1'", "name_plain");
    for (Map.Entry<String, String> e : refused.entrySet()) {
      assertThatThrownBy(() -> db.exec(e.getKey())).as(e.getKey())
          .hasMessageContaining("violates check constraint \"" + e.getValue() + "\"");
    }
    // Nothing changed: the job completes normally.
    assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
  }

  @Test
  void aSucceededJobWithALeaseIsReportedByTableKeyColumnAndValueAndNeverBlocksTheOthers() {
    Request m1 = queue.submit(NewRequest.master("m1", null)).request();
    Request m2 = queue.submit(NewRequest.master("m2", null)).request();
    queue.registerCollector("c1", "x86", true);
    queue.registerCollector("c2", "x86", true);
    queue.tick();
    Claim bad = queue.claim("c1").claims().get(0);
    Claim good = queue.claim("c2").claims().get(0);
    long id = bad.job().id().value();
    // By hand, an operator "finishes" the job and forgets the lease row: no CHECK sees across tables.
    db.exec("UPDATE " + db.schema + ".queue_jobs SET state = 'SUCCEEDED', finished_at = now() WHERE id = " + id);

    ImpossibleRowException read = catchThrowableOfType(ImpossibleRowException.class, () -> store.job(bad.job().id()));
    assertThat(read.row()).isEqualTo(new ImpossibleRow(db.schema + ".queue_jobs", "id = " + id, "state",
        "'SUCCEEDED'", "a succeeded job has no lease, but " + db.schema + ".queue_leases holds one (job_id = " + id
            + ", attempt 1, token " + bad.lease().token() + ", collector c1)"));
    assertThat(read).hasMessage("row " + db.schema + ".queue_jobs (id = " + id + ") is impossible (edited by hand?):"
        + " column state = 'SUCCEEDED': " + read.row().rule());
    assertThatThrownBy(() -> store.jobs(bad.job().requestId())).isInstanceOf(ImpossibleRowException.class);
    // Its holder gets the same clear error, and nothing changes.
    assertThatThrownBy(() -> queue.complete(bad.lease())).isInstanceOf(ImpossibleRowException.class)
        .hasMessageContaining("column state = 'SUCCEEDED'");

    // Both leases expire. The tick reports the bad one, leaves it alone, and rescues the good one.
    clock.advance(Duration.ofMinutes(2));
    TickResult tick = queue.tick();
    assertThat(tick.impossibleRows()).containsExactly(read.row());
    assertThat(tick.expired().impossibleRows()).containsExactly(read.row());
    assertThat(tick.expired().rescued()).extracting(Job::id).containsExactly(good.job().id());
    assertThat(tick.explanation().reasons()).extracting(Explanation.Reason::rule).contains("queue.impossible-row");
    assertThat(tick.explanation().sentence()).contains("1 impossible rows left alone");
    // The bad job's request counts it as succeeded (its state column says so) and completes.
    assertThat(tick.completed()).extracting(Request::id).containsExactly(m1.id());
    // A collector's claim on the tag is not blocked by the bad expired row either.
    ClaimResult again = queue.claim("c2");
    assertThat(again.claims()).extracting(c -> c.job().id()).containsExactly(good.job().id());
    assertThat(queue.complete(again.claims().get(0).lease()).ok()).isTrue();
    TickResult done = queue.tick();
    assertThat(done.completed()).extracting(Request::id).containsExactly(m2.id());
    assertThat(done.impossibleRows()).containsExactly(read.row());
    // Repair (the runbook: delete the stray lease row): the job reads cleanly again.
    db.exec("DELETE FROM " + db.schema + ".queue_leases WHERE job_id = " + id);
    assertThat(store.job(bad.job().id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(queue.tick().impossibleRows()).isEmpty();
  }

  @Test
  void leaseRowsThatDoNotMatchTheirJobAreReported() {
    queue.submit(NewRequest.master("m1", null));
    queue.registerCollector("c1", "x86", true);
    queue.tick();
    Claim claim = queue.claim("c1").claims().get(0);
    long id = claim.job().id().value();

    db.exec("UPDATE " + db.schema + ".queue_leases SET attempt = 5 WHERE job_id = " + id);
    ImpossibleRow attempt = catchThrowableOfType(ImpossibleRowException.class, () -> store.job(claim.job().id()))
        .row();
    assertThat(attempt.table()).isEqualTo(db.schema + ".queue_leases");
    assertThat(attempt.key()).isEqualTo("job_id = " + id);
    assertThat(attempt.column()).isEqualTo("attempt");
    assertThat(attempt.value()).isEqualTo("5");
    assertThat(attempt.rule()).contains("the job's attempt 1");

    db.exec("DELETE FROM " + db.schema + ".queue_leases WHERE job_id = " + id);
    ImpossibleRow missing = catchThrowableOfType(ImpossibleRowException.class, () -> store.job(claim.job().id()))
        .row();
    assertThat(missing.table()).isEqualTo(db.schema + ".queue_jobs");
    assertThat(missing.column()).isEqualTo("state");
    assertThat(missing.value()).isEqualTo("'LEASED'");
    assertThat(missing.rule()).contains("holds no row for job_id = " + id);
    // The holder's heartbeat and completion report it too; nothing changes.
    assertThatThrownBy(() -> queue.heartbeat(claim.lease())).isInstanceOf(ImpossibleRowException.class);
    assertThat(queue.tick().impossibleRows()).as("no tick operation reads this job").isEmpty();
  }

  @Test
  void whereTheConstraintsAreMissingTheReaderNamesColumnAndValue() {
    PostgresQueueStore looseStore = PostgresQueueStore.attachOnClock(db.dataSource, loose, clock);
    JobQueue q = JobQueue.of(looseStore, settings);
    Request r = q.submit(NewRequest.master("m1", null)).request();
    Request v = q.submit(NewRequest.release("v1")).request();
    q.registerCollector("c1", "x86", true);
    q.tick();
    Job job = looseStore.jobs(r.id()).get(0);
    String s = db.schema;

    db.exec("UPDATE " + s + ".loose_requests SET kind = 'NIGHTLY' WHERE id = " + v.id().value());
    assertThat(rowOf(() -> looseStore.request(v.id()))).isEqualTo(new ImpossibleRow(s + ".loose_requests",
        "id = " + v.id().value(), "kind", "'NIGHTLY'", "expected one of [MASTER, TRY, RELEASE, CI_RUN]"));

    db.exec("UPDATE " + s + ".loose_jobs SET attempt = -3 WHERE id = " + job.id().value());
    assertThat(rowOf(() -> looseStore.job(job.id()))).isEqualTo(new ImpossibleRow(s + ".loose_jobs",
        "id = " + job.id().value(), "attempt", "-3", "a counter is not negative"));

    db.exec("UPDATE " + s + ".loose_requests SET started_at = NULL WHERE id = " + r.id().value());
    ImpossibleRow started = rowOf(() -> looseStore.request(r.id()));
    assertThat(started.column()).isEqualTo("started_at");
    assertThat(started.value()).isEqualTo("NULL");
    assertThat(started.rule()).isEqualTo("a request IN_PROGRESS has a start instant");

    db.exec("UPDATE " + s + ".loose_collectors SET tag = 'x 86' WHERE name = 'c1'");
    ImpossibleRow tag = rowOf(() -> looseStore.collector("c1"));
    assertThat(tag.key()).isEqualTo("name = 'c1'");
    assertThat(tag.column()).isEqualTo("tag");
    assertThat(tag.value()).isEqualTo("'x 86'");
  }

  @Test
  void theSiteLoopReportsImpossibleRequestsAsValuesAndServesTheOthers() {
    PostgresQueueStore looseStore = PostgresQueueStore.attachOnClock(db.dataSource, loose, clock);
    JobQueue q = JobQueue.of(looseStore, settings);
    q.registerCollector("c1", "x86", true);
    Request r1 = q.submit(NewRequest.master("a1", null)).request();
    Request r2 = q.submit(NewRequest.master("a2", "a1")).request();
    Request r3 = q.submit(NewRequest.master("a3", "a2")).request();
    Request r4 = q.submit(NewRequest.master("a4", "a3")).request();
    assertThat(q.tick().started()).hasSize(2); // r1 and r2, K = 2
    String s = db.schema;
    // r1 is in progress with an outcome already; r4 (ready) has a kind nobody knows.
    db.exec("UPDATE " + s + ".loose_requests SET outcome = 'SUCCESS' WHERE id = " + r1.id().value());
    db.exec("UPDATE " + s + ".loose_requests SET kind = 'NIGHTLY' WHERE id = " + r4.id().value());
    for (Claim c : q.claim("c1", 10).claims()) {
      assertThat(q.complete(c.lease()).ok()).isTrue();
    }

    TickResult tick = q.tick();
    ImpossibleRow bad1 = new ImpossibleRow(s + ".loose_requests", "id = " + r1.id().value(), "outcome", "'SUCCESS'",
        "a request has an outcome exactly when completed, and it is IN_PROGRESS");
    ImpossibleRow bad4 = new ImpossibleRow(s + ".loose_requests", "id = " + r4.id().value(), "kind", "'NIGHTLY'",
        "expected one of [MASTER, TRY, RELEASE, CI_RUN]");
    assertThat(tick.impossibleRows()).containsExactly(bad1, bad4);
    assertThat(tick.completed()).extracting(Request::id).containsExactly(r2.id());
    // r1 may hold a slot: one of two is free, so r3 starts and r4 is left alone.
    assertThat(tick.started()).extracting(st -> st.request().orElseThrow().id()).containsExactly(r3.id());
    assertThat(tick.explanation().reasons()).filteredOn(x -> x.rule().equals("queue.impossible-row"))
        .extracting(Explanation.Reason::detail)
        .containsExactly(bad1.message() + "; the request is not completed until the row is repaired",
            bad4.message() + "; the request is not started until the row is repaired");

    QueueStatus status = q.status();
    assertThat(status.impossibleRows()).containsExactly(bad1, bad4);
    assertThat(status.entries()).extracting(e -> e.placed().request().id()).containsExactly(r3.id());
    assertThat(status.lines()).last().asString().startsWith(bad4.message());
    // The strict list reads refuse to return a partial list.
    assertThatThrownBy(looseStore::openRequests).isInstanceOf(ImpossibleRowException.class);

    // Repair both rows: the next tick completes r1 and starts r4.
    db.exec("UPDATE " + s + ".loose_requests SET outcome = NULL WHERE id = " + r1.id().value());
    db.exec("UPDATE " + s + ".loose_requests SET kind = 'MASTER' WHERE id = " + r4.id().value());
    TickResult repaired = q.tick();
    assertThat(repaired.impossibleRows()).isEmpty();
    assertThat(repaired.completed()).extracting(Request::id).containsExactly(r1.id());
    assertThat(repaired.started()).extracting(st -> st.request().orElseThrow().id()).containsExactly(r4.id());
    assertThat(looseStore.request(r1.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
  }

  private static ImpossibleRow rowOf(org.assertj.core.api.ThrowableAssert.ThrowingCallable read) {
    return catchThrowableOfType(ImpossibleRowException.class, read).row();
  }
}

package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.CompleteAndClaimResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.tck.SettableClock;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code completeAndClaim} of a collector that runs one job at a time: with the server's own time limits it
 * is one auto-committed statement per job (the completion and the next claim together); when the claim's
 * fast path does not apply, or a stale queued-jobs row makes it come back short, the completion stays done
 * and the claim runs as a claim of its own would.
 */
class CompleteAndClaimStatementTest {

  private final SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
  private final QueueSettings settings = QueueSettings.builder().maxInProgress(2).leaseDuration(Duration.ofMinutes(1))
      .collectorTimeout(Duration.ofMinutes(5)).backfill(false).addBenchmarkGroups("compile", "unit", "e2e", "lint")
      .addCollectorTargets(CollectorTarget.required("x86")).build();
  private @Nullable PgTestDatabase db;
  private final List<String> prepared = new ArrayList<>();
  private final List<String> calls = new ArrayList<>();
  private JobQueue queue;
  private String s;

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("ccstmt", 4);
    s = db.schema;
    DataSource recording = recording(db.dataSource);
    PostgresQueueOptions options = PostgresQueueOptions.inSchema(s).withTimeouts(PostgresTimeouts.serverSettings());
    queue = JobQueue.of(PostgresQueueStore.createOnClock(recording, options, clock), settings);
    queue.registerCollector("c1", "x86", true);
    queue.submit(NewRequest.master("m1", null));
    queue.tick();
  }

  @AfterEach
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void aSteadyCollectorSendsOneStatementAndNoCommitOfItsOwnPerJob() {
    Claim first = queue.claim("c1", 1).claims().get(0);
    prepared.clear();
    calls.clear();

    CompleteAndClaimResult got = queue.completeAndClaim(first.lease(), 1);

    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(got.claims()).extracting(c -> c.job().id().value()).containsExactly(2L);
    assertThat(got.claims().get(0).lease().collector()).isEqualTo("c1");
    assertThat(prepared).hasSize(1);
    assertThat(prepared.get(0)).contains(" done AS (UPDATE ").contains(" claimed AS (UPDATE ");
    assertThat(calls).doesNotContain("commit", "rollback");
    assertThat(strings("SELECT id || ' ' || state FROM " + s + ".queue_jobs ORDER BY id"))
        .containsExactly("1 SUCCEEDED", "2 LEASED", "3 QUEUED", "4 QUEUED");
    assertThat(longs("SELECT job_id FROM " + s + ".queue_leases")).containsExactly(2L);
    // The lease it returns is the one the database holds: completing it with the same call goes on.
    CompleteAndClaimResult next = queue.completeAndClaim(got.claims().get(0).lease(), 1);
    assertThat(next.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(next.claims()).extracting(c -> c.job().id().value()).containsExactly(3L);
  }

  @Test
  void aStaleListedJobMakesTheStatementComeBackShortAndTheRestIsClaimedAfterTheCompletion() {
    Claim first = queue.claim("c1", 1).claims().get(0);
    // By hand, job 2 is cancelled but stays listed as queued: the statement locks its row, deletes it and
    // claims nothing, so the rest of the limit is claimed by a claim of its own.
    db.exec("UPDATE " + s + ".queue_jobs SET state = 'CANCELLED', finished_at = now() WHERE id = 2");

    CompleteAndClaimResult got = queue.completeAndClaim(first.lease(), 1);

    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(got.claims()).extracting(c -> c.job().id().value()).containsExactly(3L);
    assertThat(longs("SELECT job_id FROM " + s + ".queue_queued ORDER BY 1")).containsExactly(4L);
    assertThat(strings("SELECT id || ' ' || state FROM " + s + ".queue_jobs ORDER BY id"))
        .containsExactly("1 SUCCEEDED", "2 CANCELLED", "3 LEASED", "4 QUEUED");
  }

  @Test
  void anExpiredLeaseOfTheTagLeavesTheClaimToTheFullPathAfterTheCompletionCommitted() {
    queue.registerCollector("c2", "x86", true);
    Claim lost = queue.claim("c2", 1).claims().get(0);
    clock.advance(Duration.ofSeconds(40));
    Claim mine = queue.claim("c1", 1).claims().get(0);
    clock.advance(Duration.ofSeconds(30)); // c2's lease has expired, c1's has not
    prepared.clear();

    CompleteAndClaimResult got = queue.completeAndClaim(mine.lease(), 1);

    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(got.claims()).hasSize(1);
    // The combined statement ran and found the expired lease; the full claim then processed it (job 1 was
    // rescued, with affinity to c2, whose heartbeat is recent) and claimed the next job for c1.
    assertThat(prepared.get(0)).contains(" done AS (UPDATE ");
    assertThat(prepared.size()).isGreaterThan(1);
    assertThat(strings("SELECT id || ' ' || state FROM " + s + ".queue_jobs WHERE id IN ("
        + lost.job().id().value() + ", " + mine.job().id().value() + ") ORDER BY id"))
        .containsExactly(lost.job().id().value() + " QUEUED", mine.job().id().value() + " SUCCEEDED");
    assertThat(got.claims().get(0).job().id().value()).isNotIn(lost.job().id().value(), mine.job().id().value());
  }

  @Test
  void aCompletionThatDoesNotApplyWritesNothingAndClaimsNothing() {
    Claim first = queue.claim("c1", 1).claims().get(0);
    clock.advance(Duration.ofMinutes(2)); // the lease has expired

    CompleteAndClaimResult got = queue.completeAndClaim(first.lease(), 1);

    assertThat(got.completion().status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(got.claim()).isEmpty();
    assertThat(strings("SELECT id || ' ' || state FROM " + s + ".queue_jobs ORDER BY id"))
        .containsExactly("1 LEASED", "2 QUEUED", "3 QUEUED", "4 QUEUED");
  }

  /** Records the SQL of every prepared statement and every commit or rollback. */
  private DataSource recording(DataSource real) {
    return (DataSource) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          Object result = PgTestDatabase.invoke(real, method, args);
          if (!method.getName().equals("getConnection")) {
            return result;
          }
          Connection c = (Connection) result;
          return java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
              new Class<?>[] {Connection.class}, (p, m, a) -> {
                synchronized (prepared) {
                  if (m.getName().equals("prepareStatement")) {
                    prepared.add((String) a[0]);
                  } else if (m.getName().equals("commit") || m.getName().equals("rollback")) {
                    calls.add(m.getName());
                  }
                }
                return PgTestDatabase.invoke(c, m, a);
              });
        });
  }

  private List<String> strings(String sql) {
    return db.strings(sql);
  }

  private List<Long> longs(String sql) {
    return db.longs(sql);
  }
}

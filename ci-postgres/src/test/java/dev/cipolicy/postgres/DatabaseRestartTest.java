package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.tck.SettableClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults of the database server itself, on a private cluster ({@link PrivatePostgresCluster}; the shared
 * server is never restarted): the server restarted while collectors and a site run, and a commit that
 * reached the database while its reply was lost. An audit trigger records every committed job state change,
 * so "exactly once" is checked against what the database committed, not against what the clients believe.
 */
class DatabaseRestartTest {

  private static PrivatePostgresCluster cluster;
  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  @BeforeAll
  static void startCluster() {
    cluster = PrivatePostgresCluster.startOrSkip();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static final int REQUESTS = 6;
  private static final int GROUPS = 40;
  private static final int COLLECTORS = 4;
  private static final long WORK_MS = 25;
  /**
   * How long the loops may run before the test gives up and names what is outstanding; they stop as soon as
   * every request is completed (5–13 s here on a loaded machine), so the bound only matters when work is lost.
   */
  private static final Duration WORK_DEADLINE = Duration.ofSeconds(150);

  @Test
  @Timeout(200)
  void collectorsAndASiteRideOutAnImmediateRestartAndEveryJobEndsExactlyOnce() throws Exception {
    String schema = "restart_" + SCHEMAS.incrementAndGet();
    QueueSettings settings = QueueSettings.builder().maxInProgress(2).leaseDuration(Duration.ofSeconds(3))
        .collectorTimeout(Duration.ofSeconds(3)).backfill(false).addAllBenchmarkGroups(groups(GROUPS))
        .addCollectorTargets(CollectorTarget.required("x86")).build();
    try (HikariDataSource sitePool = pool("site", 3, true); HikariDataSource collectorPool = pool("collectors",
        COLLECTORS + 2, false)) {
      PostgresQueueStore.create(sitePool, schema);
      audit(sitePool, schema);
      JobQueue site = JobQueue.of(PostgresQueueStore.attach(sitePool, schema), settings);
      for (int i = 0; i < REQUESTS; i++) {
        site.submit(NewRequest.master(String.format("sha%02d", i), null));
      }
      JobQueue collectors = JobQueue.of(PostgresQueueStore.attach(collectorPool, schema), settings);

      AtomicBoolean done = new AtomicBoolean();
      AtomicLong restartedAt = new AtomicLong(Long.MAX_VALUE);
      Map<Long, List<String>> finishedBy = new ConcurrentHashMap<>();
      Map<String, AtomicLong> lastSuccess = new ConcurrentHashMap<>();
      AtomicInteger unavailable = new AtomicInteger();
      AtomicInteger uncertain = new AtomicInteger();
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      List<Thread> threads = new ArrayList<>();
      long deadline = System.nanoTime() + WORK_DEADLINE.toNanos();

      threads.add(new Thread(() -> {
        try {
          while (!done.get() && System.nanoTime() < deadline) {
            try {
              site.tick();
              lastSuccess.computeIfAbsent("site", k -> new AtomicLong()).set(System.nanoTime());
              if (site.store().scanOpenRequests().requests().isEmpty()) {
                done.set(true);
              }
            } catch (QueueStoreUnavailableException e) {
              unavailable.incrementAndGet();
            }
            Thread.sleep(25);
          }
        } catch (Throwable t) {
          failures.add(t);
        }
      }, "site"));
      for (int i = 1; i <= COLLECTORS; i++) {
        String name = "c" + i;
        threads.add(new Thread(() -> collect(collectors, name, done, deadline, finishedBy, lastSuccess, unavailable,
            uncertain, failures), name));
      }
      threads.forEach(Thread::start);

      // Restart twice mid-run: like a crash once a quarter of the jobs are done, cleanly at half.
      int total = REQUESTS * GROUPS;
      List<String> restarts = new ArrayList<>();
      for (String mode : List.of("immediate", "fast")) {
        long target = restarts.isEmpty() ? total / 4 : total / 2;
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (count(schema, "SELECT count(*) FROM %s.job_audit WHERE new_state = 'SUCCEEDED'") < target) {
          assertThat(System.nanoTime()).as("%d jobs done within 40 s", target).isLessThan(waitUntil);
          Thread.sleep(20);
        }
        long before = count(schema, "SELECT count(*) FROM %s.job_audit WHERE new_state = 'SUCCEEDED'");
        assertThat(before).as("jobs done before the %s restart", mode).isLessThan(total);
        long restartStart = System.nanoTime();
        cluster.restart(mode);
        restartedAt.set(System.nanoTime());
        restarts.add(mode + " after " + before + " jobs in " + (restartedAt.get() - restartStart) / 1_000_000 + " ms");
      }
      for (Thread t : threads) {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + 5000));
      }
      if (!done.getAndSet(true)) {
        fail("the loops did not see every request completed within " + WORK_DEADLINE.toSeconds() + " s ("
            + restarts + "); outstanding: " + outstanding(schema));
      }

      assertThat(failures).as("unexpected errors in the loops").isEmpty();
      assertThat(threads).as("every loop ended").noneMatch(Thread::isAlive);
      assertThat(unavailable.get()).as("operations that met a restart (QueueStoreUnavailableException)")
          .isPositive();
      for (String who : List.of("site", "c1", "c2", "c3", "c4")) {
        assertThat(lastSuccess.get(who)).as("%s worked before the end", who).isNotNull();
        assertThat(lastSuccess.get(who).get()).as("%s worked again after the last restart (its pool reconnected)", who)
            .isGreaterThan(restartedAt.get());
      }

      // What the database committed: every job ended exactly once, nothing ended twice, nothing is left.
      assertThat(count(schema, "SELECT count(*) FROM %s.queue_requests WHERE state <> 'COMPLETED'")).isZero();
      assertThat(count(schema, "SELECT count(*) FROM %s.queue_jobs")).isEqualTo(total);
      assertThat(count(schema, "SELECT count(*) FROM %s.queue_jobs WHERE state <> 'SUCCEEDED'")).isZero();
      assertThat(count(schema, "SELECT count(*) FROM %s.queue_leases")).isZero();
      assertThat(count(schema, "SELECT count(*) FROM (SELECT job_id FROM %s.job_audit"
          + " WHERE new_state IN ('SUCCEEDED', 'FAILED', 'CANCELLED') GROUP BY job_id HAVING count(*) = 1) o"))
          .as("jobs with exactly one committed terminal transition").isEqualTo(total);
      assertThat(count(schema, "SELECT count(*) FROM %s.job_audit"
          + " WHERE old_state IN ('SUCCEEDED', 'FAILED', 'CANCELLED')")).as("transitions out of an end").isZero();
      // What the collectors know: each job was finished by exactly one of them (learned from an OK, or by
      // re-reading after a commit whose reply was lost).
      assertThat(finishedBy).hasSize(total);
      assertThat(finishedBy.values()).allSatisfy(by -> assertThat(by).hasSize(1));
      System.out.println("DatabaseRestartTest: " + total + " jobs, restarts: " + restarts + "; " + unavailable.get()
          + " operations met a restart, " + uncertain.get()
          + " of them while committing; rescued leases: " + count(schema,
              "SELECT count(*) FROM %s.job_audit WHERE old_state = 'LEASED' AND new_state = 'QUEUED'"));
    }
  }

  @Test
  @Timeout(200)
  void anOutageLongerThanALeaseLosesNoJobFinishesNoneTwiceAndTheQueueResumesAtOnce() throws Exception {
    String schema = "outage_" + SCHEMAS.incrementAndGet();
    Duration lease = Duration.ofSeconds(2);
    Duration outage = lease.multipliedBy(3);
    int groups = 20;
    int requests = 2;
    QueueSettings settings = QueueSettings.builder().maxInProgress(2).leaseDuration(lease).collectorTimeout(lease)
        .backfill(false).addAllBenchmarkGroups(groups(groups)).addCollectorTargets(CollectorTarget.required("x86"))
        .build();
    try (HikariDataSource sitePool = pool("outage-site", 3, false); HikariDataSource collectorPool = pool(
        "outage-collectors", COLLECTORS + 2, false)) {
      PostgresQueueStore.create(sitePool, schema);
      JobAudit audit = JobAudit.install(sitePool, schema);
      JobQueue site = JobQueue.of(PostgresQueueStore.attach(sitePool, schema), settings);
      for (int i = 0; i < requests; i++) {
        site.submit(NewRequest.master(String.format("out%02d", i), null));
      }
      JobQueue collectors = JobQueue.of(PostgresQueueStore.attach(collectorPool, schema),
          settings);
      int total = requests * groups;
      AtomicBoolean done = new AtomicBoolean();
      AtomicLong upAgainAt = new AtomicLong(Long.MAX_VALUE);
      AtomicLong firstClaimAfter = new AtomicLong(Long.MAX_VALUE);
      AtomicLong firstTickAfter = new AtomicLong(Long.MAX_VALUE);
      AtomicInteger unavailable = new AtomicInteger();
      AtomicInteger uncertain = new AtomicInteger();
      Map<Long, List<String>> finishedBy = new ConcurrentHashMap<>();
      Map<String, AtomicLong> lastSuccess = new ConcurrentHashMap<>();
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      List<Thread> threads = new ArrayList<>();
      long deadline = System.nanoTime() + WORK_DEADLINE.toNanos();
      threads.add(new Thread(() -> {
        try {
          while (!done.get() && System.nanoTime() < deadline) {
            try {
              site.tick();
              long now = System.nanoTime();
              if (now > upAgainAt.get()) {
                firstTickAfter.compareAndSet(Long.MAX_VALUE, now);
              }
              if (site.store().scanOpenRequests().requests().isEmpty()) {
                done.set(true);
              }
            } catch (QueueStoreUnavailableException e) {
              unavailable.incrementAndGet();
            }
            Thread.sleep(25);
          }
        } catch (Throwable t) {
          failures.add(t);
        }
      }, "outage-site"));
      for (int i = 1; i <= COLLECTORS; i++) {
        String name = "o" + i;
        threads.add(new Thread(() -> {
          try {
            boolean registered = false;
            while (!done.get() && System.nanoTime() < deadline) {
              try {
                if (!registered) {
                  collectors.registerCollector(name, "x86", true);
                  registered = true;
                }
                ClaimResult claimed = collectors.claim(name, 1);
                long now = System.nanoTime();
                if (claimed.claims().isEmpty()) {
                  Thread.sleep(10);
                  continue;
                }
                if (now > upAgainAt.get()) {
                  firstClaimAfter.compareAndSet(Long.MAX_VALUE, now);
                }
                for (Claim claim : claimed.claims()) {
                  Thread.sleep(WORK_MS * 4);
                  finish(collectors, name, claim.lease(), deadline, finishedBy, unavailable, uncertain);
                }
              } catch (QueueStoreUnavailableException e) {
                unavailable.incrementAndGet();
                Thread.sleep(50);
              }
            }
          } catch (Throwable t) {
            failures.add(t);
          }
        }, name));
      }
      threads.forEach(Thread::start);

      long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (audit.count("SELECT count(*) FROM %s.job_audit WHERE new_state = 'SUCCEEDED'") < total / 4) {
        assertThat(System.nanoTime()).as("a quarter of the jobs done within 40 s").isLessThan(waitUntil);
        Thread.sleep(20);
      }
      long leasedBefore = audit.count("SELECT count(*) FROM %s.queue_leases");
      long stopStart = System.nanoTime();
      cluster.stopServer("fast");
      Thread.sleep(outage.toMillis());
      cluster.startAgain();
      upAgainAt.set(System.nanoTime());
      long downMs = (upAgainAt.get() - stopStart) / 1_000_000;
      for (Thread t : threads) {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + 5000));
      }
      if (!done.getAndSet(true)) {
        fail("the loops did not see every request completed within " + WORK_DEADLINE.toSeconds()
            + " s (an outage of " + downMs + " ms); outstanding: " + outstanding(schema));
      }

      assertThat(failures).as("unexpected errors in the loops").isEmpty();
      assertThat(threads).as("every loop ended").noneMatch(Thread::isAlive);
      assertThat(unavailable.get()).as("operations that met the outage").isPositive();
      assertThat(audit.count("SELECT count(*) FROM %s.queue_requests WHERE state <> 'COMPLETED'")).isZero();
      assertThat(audit.count("SELECT count(*) FROM %s.queue_jobs")).as("no job lost").isEqualTo(total);
      assertThat(audit.count("SELECT count(*) FROM %s.queue_jobs WHERE state <> 'SUCCEEDED'")).isZero();
      assertThat(audit.finishedOnce()).as("jobs with exactly one committed terminal transition").isEqualTo(total);
      assertThat(audit.finishedTwice()).isZero();
      assertThat(audit.leftAnEnd()).isZero();
      assertThat(finishedBy).hasSize(total);
      assertThat(finishedBy.values()).allSatisfy(by -> assertThat(by).hasSize(1));
      long claimMs = (firstClaimAfter.get() - upAgainAt.get()) / 1_000_000;
      long tickMs = (firstTickAfter.get() - upAgainAt.get()) / 1_000_000;
      assertThat(firstClaimAfter.get()).as("a job was claimed after the restart").isNotEqualTo(Long.MAX_VALUE);
      assertThat(claimMs).as("first claim after the server is back (ms)").isLessThan(10_000);
      assertThat(tickMs).as("first site tick after the server is back (ms)").isLessThan(10_000);
      System.out.println("DatabaseRestartTest: outage of " + downMs + " ms (lease " + lease.toMillis() + " ms) with "
          + leasedBefore + " leases live at the stop; first claim " + claimMs + " ms and first tick " + tickMs
          + " ms after the server accepted connections again; " + unavailable.get() + " operations met the outage ("
          + uncertain.get() + " while committing); rescued leases: " + audit.rescued() + "; " + total
          + " jobs each finished once");
    }
  }

  private static void collect(JobQueue queue, String name, AtomicBoolean done, long deadline,
      Map<Long, List<String>> finishedBy, Map<String, AtomicLong> lastSuccess, AtomicInteger unavailable,
      AtomicInteger uncertain, List<Throwable> failures) {
    try {
      boolean registered = false;
      while (!done.get() && System.nanoTime() < deadline) {
        try {
          if (!registered) {
            queue.registerCollector(name, "x86", true);
            registered = true;
          }
          ClaimResult claimed = queue.claim(name, 2);
          lastSuccess.computeIfAbsent(name, k -> new AtomicLong()).set(System.nanoTime());
          if (claimed.claims().isEmpty()) {
            Thread.sleep(10);
            continue;
          }
          for (Claim claim : claimed.claims()) {
            Thread.sleep(WORK_MS);
            finish(queue, name, claim.lease(), deadline, finishedBy, unavailable, uncertain);
          }
        } catch (QueueStoreUnavailableException e) {
          unavailable.incrementAndGet();
          Thread.sleep(50);
        }
      }
    } catch (Throwable t) {
      failures.add(t);
    }
  }

  /**
   * Completes a job, retrying while the database is away. An OK is a completion; after a reply lost during
   * a commit, a refused retry and a re-read that shows the job succeeded in this lease's attempt is too.
   */
  private static void finish(JobQueue queue, String name, Lease lease, long deadline,
      Map<Long, List<String>> finishedBy, AtomicInteger unavailable, AtomicInteger uncertain)
      throws InterruptedException {
    boolean mayHaveCommitted = false;
    while (System.nanoTime() < deadline) {
      try {
        LeaseResult result = queue.complete(lease);
        if (result.ok()) {
          finishedBy.computeIfAbsent(lease.jobId().value(), k -> new CopyOnWriteArrayList<>())
              .add(name + "@" + lease.attempt());
        } else if (mayHaveCommitted) {
          Job job = queue.store().job(lease.jobId()).orElseThrow();
          if (job.state() == JobState.SUCCEEDED && job.attempt() == lease.attempt()) {
            finishedBy.computeIfAbsent(lease.jobId().value(), k -> new CopyOnWriteArrayList<>())
                .add(name + "@" + lease.attempt() + " (reply lost)");
          }
        }
        return;
      } catch (QueueStoreUnavailableException e) {
        unavailable.incrementAndGet();
        if (e.mayHaveCommitted()) {
          uncertain.incrementAndGet();
          mayHaveCommitted = true;
        }
        Thread.sleep(50);
      }
    }
  }

  @Test
  @Timeout(60)
  void aClaimAndACompletionCommittedWithTheirRepliesLostEndTheJobOnce() throws Exception {
    String schema = "lost_" + SCHEMAS.incrementAndGet();
    SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
    QueueSettings settings = QueueSettings.builder().maxInProgress(1).leaseDuration(Duration.ofMinutes(1))
        .collectorTimeout(Duration.ofMinutes(5)).backfill(false).addBenchmarkGroups("compile")
        .addCollectorTargets(CollectorTarget.required("x86")).build();
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (HikariDataSource sitePool = pool("site", 3, true);
        HikariDataSource collectorPool = pool("collector-" + schema, 2, false)) {
      PostgresQueueStore store = PostgresQueueStore.createOnClock(sitePool, schema, clock);
      audit(sitePool, schema);
      JobQueue site = JobQueue.of(store, settings);
      JobQueue collector = JobQueue.of(PostgresQueueStore.attachOnClock(collectorPool, schema, clock), settings);
      Request request = site.submit(NewRequest.master("sha1", null)).request();
      site.registerCollector("c1", "x86", true);
      site.tick();
      Job job = store.jobs(request.id()).get(0);
      clock.advance(Duration.ofSeconds(1));

      // The claim commits, but the collector never hears of it.
      QueueStoreUnavailableException claimLost = replyLost(sitePool, executor, "collector-" + schema,
          () -> collector.claim("c1"));
      assertThat(claimLost.operation()).isEqualTo("claim");
      assertThat(claimLost.mayHaveCommitted()).isTrue();
      assertThat(claimLost).hasMessageContaining("lost during the commit")
          .hasMessageContaining("the outcome is unknown");
      Job leasedUnknown = store.job(job.id()).orElseThrow();
      assertThat(leasedUnknown.state()).as("the claim took effect").isEqualTo(JobState.LEASED);
      Lease lostLease = leasedUnknown.lease().orElseThrow();
      assertThat(lostLease.attempt()).isEqualTo(1);
      assertThat(lostLease.collector()).isEqualTo("c1");

      // Its lease is live, so nobody (not even c1) gets the job; once it expires, c1 reclaims it.
      assertThat(collector.claim("c1").claims()).isEmpty();
      clock.advance(Duration.ofSeconds(61));
      Claim reclaimed = collector.claim("c1").claims().get(0);
      assertThat(reclaimed.job().id()).isEqualTo(job.id());
      assertThat(reclaimed.lease().attempt()).isEqualTo(2);
      assertThat(reclaimed.job().crashRescues()).isEqualTo(1);
      assertThat(store.complete(new LeaseRef(job.id(), lostLease.attempt(), lostLease.token())).status())
          .as("the lost lease is fenced off").isEqualTo(LeaseStatus.STALE_LEASE);
      clock.advance(Duration.ofSeconds(1));

      // The completion commits, but its reply is lost too: a retry is refused, a re-read shows it done.
      QueueStoreUnavailableException completionLost = replyLost(sitePool, executor, "collector-" + schema,
          () -> collector.complete(reclaimed.lease()));
      assertThat(completionLost.operation()).isEqualTo("complete");
      assertThat(completionLost.mayHaveCommitted()).isTrue();
      assertThat(collector.complete(reclaimed.lease()).status()).isEqualTo(LeaseStatus.STALE_LEASE);
      Job done = collector.store().job(job.id()).orElseThrow();
      assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
      assertThat(done.attempt()).isEqualTo(reclaimed.lease().attempt());

      assertThat(transitions(schema, job)).containsExactly("QUEUED->LEASED@1", "LEASED->QUEUED@1",
          "QUEUED->LEASED@2", "LEASED->SUCCEEDED@2");
      assertThat(site.tick().completed()).extracting(Request::id).containsExactly(request.id());
    } finally {
      executor.shutdownNow();
      setSyncStandby(null);
    }
  }

  /**
   * Runs the operation with synchronous replication to a standby that does not exist switched on, so its
   * commit is written but waits for a reply; terminates its backend in that wait (the commit stays, the reply
   * is lost), switches the standby off again and returns the exception the operation ended with.
   */
  private QueueStoreUnavailableException replyLost(DataSource local, ExecutorService executor, String application,
      Supplier<?> operation) throws Exception {
    setSyncStandby("nobody");
    Future<?> running;
    try {
      running = executor.submit(operation::get);
      int pid = waitingBackend(local, application, "SyncRep");
      try (Connection c = local.getConnection(); PreparedStatement kill = c.prepareStatement(
          "SELECT pg_terminate_backend(?)")) {
        kill.setInt(1, pid);
        try (ResultSet rs = kill.executeQuery()) {
          rs.next();
          assertThat(rs.getBoolean(1)).isTrue();
        }
      }
    } finally {
      setSyncStandby(null);
    }
    return PgTestDatabase.unavailableFrom(running);
  }

  private static int waitingBackend(DataSource ds, String application, String waitEvent) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < until) {
      try (Connection c = ds.getConnection(); PreparedStatement st = c.prepareStatement(
          "SELECT pid FROM pg_stat_activity WHERE application_name = ? AND wait_event = ?")) {
        st.setString(1, application);
        st.setString(2, waitEvent);
        try (ResultSet rs = st.executeQuery()) {
          if (rs.next()) {
            return rs.getInt(1);
          }
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no backend of " + application + " waited on " + waitEvent + "\n" + cluster.log());
  }

  /** Sets or resets {@code synchronous_standby_names} and waits until commits see it. */
  private static void setSyncStandby(String name) throws SQLException, InterruptedException {
    try (Connection c = DriverManager.getConnection(cluster.url() + "?options=-c%20synchronous_commit%3Dlocal",
        "postgres", null)) {
      try (PreparedStatement st = c.prepareStatement(name == null ? "ALTER SYSTEM RESET synchronous_standby_names"
          : "ALTER SYSTEM SET synchronous_standby_names = '" + name + "'")) {
        st.execute();
      }
      try (PreparedStatement st = c.prepareStatement("SELECT pg_reload_conf()")) {
        st.execute();
      }
    }
    // The checkpointer publishes the setting to committing backends after the reload.
    Thread.sleep(1000);
  }

  private static List<String> transitions(String schema, Job job) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(cluster.url(), "postgres", null);
        PreparedStatement st = c.prepareStatement("SELECT old_state, new_state, attempt FROM " + schema
            + ".job_audit WHERE job_id = ? ORDER BY seq")) {
      st.setLong(1, job.id().value());
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1) + "->" + rs.getString(2) + "@" + rs.getInt(3));
        }
      }
    }
    return out;
  }

  private static HikariDataSource pool(String application, int size, boolean localCommit) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(cluster.url());
    config.setUsername("postgres");
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(1500);
    config.setValidationTimeout(500);
    config.setPoolName("private-" + application);
    config.addDataSourceProperty("ApplicationName", application);
    if (localCommit) {
      config.addDataSourceProperty("options", "-c synchronous_commit=local");
    }
    return new HikariDataSource(config);
  }

  private static void audit(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection()) {
      for (String sql : List.of(
          "CREATE TABLE " + schema + ".job_audit (seq bigserial PRIMARY KEY, job_id bigint NOT NULL,"
              + " old_state text NOT NULL, new_state text NOT NULL, attempt integer NOT NULL)",
          "CREATE FUNCTION " + schema + ".audit_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "
              + schema + ".job_audit (job_id, old_state, new_state, attempt) VALUES (NEW.id, OLD.state, NEW.state,"
              + " NEW.attempt); RETURN NULL; END $$",
          "CREATE TRIGGER audit AFTER UPDATE OF state ON " + schema + ".queue_jobs FOR EACH ROW"
              + " WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION " + schema + ".audit_job()")) {
        try (PreparedStatement st = c.prepareStatement(sql)) {
          st.execute();
        }
      }
    }
  }

  /** The requests not completed and the jobs not succeeded, by state, and the leases held. */
  private static String outstanding(String schema) throws SQLException {
    StringBuilder out = new StringBuilder();
    for (String state : List.of("WAITING_FOR_ARTIFACTS", "ARTIFACTS_READY", "IN_PROGRESS", "CANCELLED")) {
      long n = count(schema, "SELECT count(*) FROM %s.queue_requests WHERE state = '" + state + "'");
      out.append(n == 0 ? "" : "requests " + state + "=" + n + ", ");
    }
    for (String state : List.of("QUEUED", "LEASED", "FAILED", "CANCELLED")) {
      long n = count(schema, "SELECT count(*) FROM %s.queue_jobs WHERE state = '" + state + "'");
      out.append(n == 0 ? "" : "jobs " + state + "=" + n + ", ");
    }
    return out.append("leases held ").append(count(schema, "SELECT count(*) FROM %s.queue_leases")).toString();
  }

  private static long count(String schema, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(cluster.url(), "postgres", null);
        PreparedStatement st = c.prepareStatement(String.format(sql, schema)); ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static List<String> groups(int n) {
    List<String> out = new ArrayList<>();
    for (int g = 1; g <= n; g++) {
      out.add(String.format("g%03d", g));
    }
    return out;
  }
}

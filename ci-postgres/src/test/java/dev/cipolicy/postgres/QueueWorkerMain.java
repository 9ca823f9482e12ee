package dev.cipolicy.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.QueueStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A test-only process that drives one queue role against {@link PostgresQueueStore} with the system clock,
 * for the cross-process and fault tests. Arguments are {@code key=value} pairs:
 *
 * <ul>
 *   <li>{@code role}: {@code collector} (register, claim, heartbeat, complete or fail, until no request is
 *       open), {@code site} (tick until no request is open), {@code hold} (claim one job, print
 *       {@code CLAIMED <job> <attempt> <token>}, then only heartbeat it, as a collector stuck mid-job) or
 *       {@code zombie} (like {@code hold}, but once a heartbeat is refused it tries to complete the job anyway,
 *       prints {@code FENCED heartbeat=<status> complete=<status>} and exits; after {@code workMs} of good
 *       heartbeats it completes and prints {@code COMPLETED <status>});
 *   <li>{@code pauseMs} (site): pause that long inside the first start, right after locking the control row,
 *       printing {@code PAUSED holding the control row} (the test may also SIGSTOP the process then);
 *   <li>{@code lockMs}, {@code statementMs}, {@code idleMs}: the store's time limits (defaults otherwise);
 *   <li>{@code url}, {@code user}, {@code schema}: the database (127.0.0.1 only, as every test);
 *   <li>{@code name}, {@code tag}: the collector;
 *   <li>{@code groups}, {@code tags}, {@code k}, {@code leaseMs}, {@code timeoutMs}: the queue settings, the
 *       same in every process;
 *   <li>{@code durationMs}, {@code maxIterations}: the bounds; the process always exits by itself. A
 *       {@code collector} or {@code site} says on its {@code DONE} line why it stopped: {@code stop=done} (no
 *       request open) or {@code stop=bound} (a bound ended the loop with work possibly outstanding).
 * </ul>
 *
 * <p>A collector records every job it brought to a terminal state in {@code <schema>.worker_outcomes}, so
 * the test can count terminal transitions per job across processes. It fails job ids divisible by 13
 * transiently on their first attempt (they are retried) and ids divisible by 29 permanently.
 */
public final class QueueWorkerMain {

  private QueueWorkerMain() {
  }

  /**
   * Runs one role; exit status 0 when the loop ended normally, 2 on too many store errors.
   *
   * @param args {@code key=value} pairs
   * @throws Exception on a broken setup
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected key=value, got " + arg);
      }
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String url = a.get("url");
    if (url == null || !url.startsWith("jdbc:postgresql://127.0.0.1")
        && !url.startsWith("jdbc:postgresql://localhost")) {
      throw new IllegalArgumentException("url must point at 127.0.0.1, got " + url);
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(a.getOrDefault("user", "postgres"));
    config.setMaximumPoolSize(2);
    config.setPoolName("worker-" + a.getOrDefault("name", "site"));
    int status;
    try (HikariDataSource ds = new HikariDataSource(config)) {
      String schema = a.get("schema");
      PostgresTimeouts limits = PostgresTimeouts.defaults();
      if (a.containsKey("lockMs")) {
        limits = limits.withLockTimeout(Duration.ofMillis(Long.parseLong(a.get("lockMs"))));
      }
      if (a.containsKey("statementMs")) {
        limits = limits.withStatementTimeout(Duration.ofMillis(Long.parseLong(a.get("statementMs"))));
      }
      if (a.containsKey("idleMs")) {
        limits = limits.withIdleInTransactionTimeout(Duration.ofMillis(Long.parseLong(a.get("idleMs"))));
      }
      DataSource storeDs = ds;
      if (a.containsKey("pauseMs")) {
        long pauseMs = Long.parseLong(a.get("pauseMs"));
        storeDs = PgTestDatabase.pausingAfter(ds, "control WHERE id = 1 FOR UPDATE", () -> {
          System.out.println("PAUSED holding the control row");
          System.out.flush();
          try {
            Thread.sleep(pauseMs);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          System.out.println("RESUMED");
          System.out.flush();
        });
      }
      PostgresQueueStore store = PostgresQueueStore.attach(storeDs,
          PostgresQueueOptions.inSchema(schema).withTimeouts(limits));
      JobQueue queue = JobQueue.of(store, settings(a));
      long deadline = System.nanoTime() + Duration.ofMillis(Long.parseLong(a.getOrDefault("durationMs", "45000")))
          .toNanos();
      int maxIterations = Integer.parseInt(a.getOrDefault("maxIterations", "100000"));
      String role = a.get("role");
      status = switch (role) {
        case "collector" -> collect(queue, ds, schema, a.get("name"), a.get("tag"), deadline, maxIterations);
        case "site" -> site(queue, deadline, maxIterations);
        case "hold" -> hold(queue, a.get("name"), a.get("tag"), deadline, maxIterations);
        case "zombie" -> zombie(queue, a.get("name"), a.get("tag"), deadline,
            Long.parseLong(a.getOrDefault("workMs", "60000")));
        default -> throw new IllegalArgumentException("unknown role " + role);
      };
    }
    System.out.flush();
    System.exit(status);
  }

  static QueueSettings settings(Map<String, String> a) {
    int groups = Integer.parseInt(a.getOrDefault("groups", "1"));
    List<String> names = new ArrayList<>();
    for (int g = 1; g <= groups; g++) {
      names.add(String.format("g%03d", g));
    }
    List<CollectorTarget> targets = new ArrayList<>();
    for (String tag : a.getOrDefault("tags", "x86").split(",")) {
      targets.add(CollectorTarget.required(tag));
    }
    return QueueSettings.builder().maxInProgress(Integer.parseInt(a.getOrDefault("k", "1")))
        .leaseDuration(Duration.ofMillis(Long.parseLong(a.getOrDefault("leaseMs", "10000"))))
        .collectorTimeout(Duration.ofMillis(Long.parseLong(a.getOrDefault("timeoutMs", "10000"))))
        .backfill(false).addAllBenchmarkGroups(names).addAllCollectorTargets(targets).build();
  }

  private static int collect(JobQueue queue, DataSource ds, String schema, String name, String tag, long deadline,
      int maxIterations) throws InterruptedException, SQLException {
    queue.registerCollector(name, tag, true);
    int terminal = 0;
    int retried = 0;
    int stale = 0;
    int errors = 0;
    int idle = 0;
    int iterations = 0;
    boolean finished = false;
    while (System.nanoTime() < deadline && iterations++ < maxIterations) {
      try {
        ClaimResult claimed = queue.claim(name, 4);
        if (claimed.status() != ClaimResult.Status.OK) {
          throw new IllegalStateException(name + ": claim answered " + claimed.status());
        }
        if (claimed.claims().isEmpty()) {
          if (queue.store().openRequests().isEmpty() && ++idle >= 3) {
            finished = true;
            break;
          }
          queue.collectorHeartbeat(name);
          Thread.sleep(15);
          continue;
        }
        idle = 0;
        for (Claim claim : claimed.claims()) {
          Lease lease = claim.lease();
          LeaseResult beat = queue.heartbeat(lease);
          if (!beat.ok()) {
            stale++;
            continue;
          }
          long id = lease.jobId().value();
          LeaseResult done;
          if (id % 29 == 0) {
            done = queue.fail(lease, Failure.permanent("worker " + name + " fails job " + id + " on purpose"));
          } else if (id % 13 == 0 && lease.attempt() == 1) {
            done = queue.fail(lease, Failure.transientFailure("worker " + name + " retries job " + id));
          } else {
            done = queue.complete(lease);
          }
          if (!done.ok()) {
            stale++;
            continue;
          }
          Job after = done.job().orElseThrow(() -> new IllegalStateException("an OK lease result without its job"));
          if (after.state().isTerminal()) {
            record(ds, schema, id, lease.attempt(), name, after.state().name());
            terminal++;
          } else {
            retried++;
          }
        }
      } catch (QueueStoreException e) {
        System.out.println("ERROR " + name + ": " + e.getMessage());
        if (++errors > 50) {
          return 2;
        }
        Thread.sleep(20);
      }
    }
    System.out.println("DONE collector " + name + " terminal=" + terminal + " retried=" + retried + " stale=" + stale
        + " errors=" + errors + " iterations=" + iterations + " stop=" + (finished ? "done" : "bound"));
    return 0;
  }

  private static void record(DataSource ds, String schema, long job, int attempt, String collector, String outcome)
      throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement st = c.prepareStatement("INSERT INTO " + schema
        + ".worker_outcomes (job_id, attempt, collector, outcome) VALUES (?, ?, ?, ?)")) {
      st.setLong(1, job);
      st.setInt(2, attempt);
      st.setString(3, collector);
      st.setString(4, outcome);
      st.executeUpdate();
    }
  }

  private static int site(JobQueue queue, long deadline, int maxIterations) throws InterruptedException {
    int started = 0;
    int completed = 0;
    int errors = 0;
    int iterations = 0;
    boolean finished = false;
    while (System.nanoTime() < deadline && iterations++ < maxIterations) {
      try {
        var tick = queue.tick();
        started += tick.started().size();
        completed += tick.completed().size();
        if (queue.store().openRequests().isEmpty()) {
          finished = true;
          break;
        }
      } catch (QueueStoreException e) {
        System.out.println("ERROR site: " + e.getMessage());
        if (++errors > 50) {
          return 2;
        }
      }
      Thread.sleep(10);
    }
    System.out.println("DONE site started=" + started + " completed=" + completed + " errors=" + errors
        + " iterations=" + iterations + " stop=" + (finished ? "done" : "bound"));
    return 0;
  }

  private static int zombie(JobQueue queue, String name, String tag, long deadline, long workMs)
      throws InterruptedException {
    queue.registerCollector(name, tag, true);
    Lease lease = null;
    while (lease == null && System.nanoTime() < deadline) {
      List<Claim> claims = queue.claim(name).claims();
      if (claims.isEmpty()) {
        Thread.sleep(50);
      } else {
        lease = claims.get(0).lease();
      }
    }
    if (lease == null) {
      System.out.println("NOTHING " + name + " claimed no job");
      return 3;
    }
    System.out.println("CLAIMED " + lease.jobId().value() + " " + lease.attempt() + " " + lease.token());
    System.out.flush();
    long workUntil = System.nanoTime() + Duration.ofMillis(workMs).toNanos();
    // Its result travels with the completion, so a refused completion keeps no result either.
    ResultPayload result = ResultPayload.ofText("zombie " + name + " attempt " + lease.attempt());
    while (System.nanoTime() < deadline) {
      LeaseResult beat;
      try {
        beat = queue.heartbeat(lease);
      } catch (QueueStoreException e) {
        System.out.println("ERROR " + name + ": " + e.getMessage());
        Thread.sleep(100);
        continue;
      }
      if (!beat.ok()) {
        LeaseResult done = queue.complete(lease, result);
        System.out.println("FENCED heartbeat=" + beat.status() + " complete=" + done.status());
        return 0;
      }
      if (System.nanoTime() > workUntil) {
        System.out.println("COMPLETED " + queue.complete(lease, result).status());
        return 0;
      }
      Thread.sleep(200);
    }
    System.out.println("DONE zombie " + name + " ran out of time");
    return 0;
  }

  private static int hold(JobQueue queue, String name, String tag, long deadline, int maxIterations)
      throws InterruptedException {
    queue.registerCollector(name, tag, true);
    int iterations = 0;
    Lease lease = null;
    while (lease == null && System.nanoTime() < deadline && iterations++ < maxIterations) {
      List<Claim> claims = queue.claim(name).claims();
      if (claims.isEmpty()) {
        Thread.sleep(50);
      } else {
        lease = claims.get(0).lease();
      }
    }
    if (lease == null) {
      System.out.println("NOTHING " + name + " claimed no job");
      return 3;
    }
    System.out.println("CLAIMED " + lease.jobId().value() + " " + lease.attempt() + " " + lease.token());
    System.out.flush();
    // Mid-job: keep the lease alive until killed (or the bound ends; then the job is simply abandoned).
    while (System.nanoTime() < deadline && iterations++ < maxIterations) {
      queue.heartbeat(lease);
      queue.collectorHeartbeat(name);
      Thread.sleep(200);
    }
    System.out.println("DONE hold " + name + " was never killed");
    return 0;
  }
}

package dev.cipolicy.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.SubmitResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several collector JVMs and two site JVMs on one schema, thousands of jobs: every job reaches exactly one
 * terminal state, and a sampler never sees more than K requests in progress.
 */
class CrossProcessQueueTest {

  private static final int GROUPS = 50;
  private static final List<String> TAGS = List.of("x86", "arm");
  private static final int REQUESTS = 24;
  private static final int K = 2;
  private static final int COLLECTORS_PER_TAG = 2;
  /**
   * How long the workers may take before the test gives up and names what is outstanding. They took 16-18 s
   * at a load of 10 on two cores and 40-42 s at 16 (the fixed 50 s they used to run for was nearly spent);
   * they stop as soon as no request is open, so the bound only matters when the queue lost a job (then no
   * worker ever sees the work done) or the machine is slower still.
   */
  private static final Duration WORK_DEADLINE = Duration.ofSeconds(240);

  private PgTestDatabase db;
  private final List<WorkerProcess> workers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = PgTestDatabase.open("xproc", 4);
    PostgresQueueStore.create(db.dataSource, db.schema);
    db.exec("CREATE TABLE " + db.schema + ".worker_outcomes (job_id bigint NOT NULL, attempt integer NOT NULL,"
        + " collector text NOT NULL, outcome text NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())");
  }

  @AfterEach
  void tearDown() {
    workers.forEach(WorkerProcess::kill);
    if (db != null) {
      db.close();
    }
  }

  @Test
  @Timeout(300)
  void collectorAndSiteProcessesBringEveryJobToExactlyOneTerminalState(@TempDir Path logs) throws Exception {
    Map<String, String> common = db.workerArgs();
    common.put("groups", Integer.toString(GROUPS));
    common.put("tags", String.join(",", TAGS));
    common.put("k", Integer.toString(K));
    common.put("leaseMs", "10000");
    common.put("timeoutMs", "10000");
    // The workers stop when no request is open (observably done), never on a clock of their own: their bounds
    // lie beyond the test's deadline, which kills them and says what was outstanding.
    common.put("durationMs", Long.toString(WORK_DEADLINE.plusMinutes(5).toMillis()));
    common.put("maxIterations", Integer.toString(Integer.MAX_VALUE - 1));
    QueueSettings settings = QueueWorkerMain.settings(common);
    JobQueue queue = JobQueue.of(PostgresQueueStore.attach(db.dataSource, db.schema), settings);
    for (int i = 0; i < REQUESTS; i++) {
      SubmitResult submitted = queue.submit(NewRequest.master(String.format("sha%04d", i), null));
      assertThat(submitted.status()).isEqualTo(SubmitResult.Status.CREATED);
    }
    int expectedJobs = REQUESTS * GROUPS * TAGS.size();
    assertThat(expectedJobs).isGreaterThanOrEqualTo(2000);

    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicInteger maxInProgress = new AtomicInteger();
    AtomicInteger samples = new AtomicInteger();
    AtomicReference<Throwable> samplerError = new AtomicReference<>();
    Thread sampler = new Thread(() -> {
      String sql = "SELECT count(*) FROM " + db.schema + ".queue_requests WHERE state = 'IN_PROGRESS'";
      try (Connection c = db.dataSource.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
        while (sampling.get()) {
          try (ResultSet rs = st.executeQuery()) {
            rs.next();
            maxInProgress.accumulateAndGet(rs.getInt(1), Math::max);
            samples.incrementAndGet();
          }
          Thread.sleep(2);
        }
      } catch (SQLException | InterruptedException e) {
        samplerError.set(e);
      }
    }, "in-progress-sampler");
    sampler.setDaemon(true);
    sampler.start();

    long started = System.nanoTime();
    for (int s = 1; s <= 2; s++) {
      workers.add(WorkerProcess.start("site" + s, logs, WorkerProcess.args(common, "role=site", "name=site" + s)));
    }
    for (String tag : TAGS) {
      for (int c = 1; c <= COLLECTORS_PER_TAG; c++) {
        String name = tag + "-c" + c;
        workers.add(WorkerProcess.start(name, logs, WorkerProcess.args(common, "role=collector", "name=" + name, "tag=" + tag)));
      }
    }
    // Each worker stops by itself once no request is open; wait for that, not for a fixed time.
    long deadline = started + WORK_DEADLINE.toNanos();
    for (WorkerProcess w : workers) {
      w.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
    sampling.set(false);
    List<String> running = workers.stream().filter(w -> w.process.isAlive()).map(w -> w.label).toList();
    if (!running.isEmpty()) {
      String outstanding = outstanding(expectedJobs); // read before the kill, as the workers left it
      String report = report();
      for (WorkerProcess w : workers) {
        w.await(0); // kills what still runs
      }
      fail("the workers did not finish the work within " + WORK_DEADLINE.toSeconds() + " s; still running "
          + running + "; outstanding: " + outstanding + "\n" + report);
    }
    String report = report();
    boolean allExited = workers.stream()
        .allMatch(w -> w.process.exitValue() == 0 && w.output().contains(" stop=done"));
    sampler.join(5000);
    long millis = (System.nanoTime() - started) / 1_000_000;

    assertThat(allExited).as("every worker exits 0 by itself once no request is open:\n%s", report).isTrue();
    assertThat(samplerError.get()).as("sampler").isNull();
    assertThat(samples.get()).isGreaterThan(10);
    assertThat(maxInProgress.get()).as("most requests ever seen in progress").isBetween(1, K);

    String s = db.schema;
    assertThat(count("SELECT count(*) FROM " + s + ".queue_jobs")).isEqualTo(expectedJobs);
    assertThat(count("SELECT count(*) FROM " + s + ".queue_requests WHERE state <> 'COMPLETED'"))
        .as("requests not completed").isZero();
    assertThat(count("SELECT count(*) FROM " + s + ".queue_jobs WHERE state NOT IN ('SUCCEEDED', 'FAILED')"))
        .as("jobs lost (not terminal):\n%s", report).isZero();
    assertThat(count("SELECT count(*) FROM " + s + ".queue_leases")).as("leases left").isZero();
    assertThat(count("SELECT count(*) FROM (SELECT job_id FROM " + s + ".worker_outcomes GROUP BY job_id"
        + " HAVING count(*) > 1) d")).as("jobs brought to a terminal state twice").isZero();
    assertThat(count("SELECT count(*) FROM " + s + ".queue_jobs j LEFT JOIN " + s + ".worker_outcomes o"
        + " ON o.job_id = j.id WHERE o.job_id IS NULL OR o.outcome <> j.state"))
        .as("jobs whose recorded terminal transition is missing or differs from the store").isZero();
    assertThat(count("SELECT count(*) FROM " + s + ".queue_jobs WHERE state = 'FAILED'"))
        .isEqualTo(count("SELECT count(*) FROM " + s + ".queue_jobs WHERE id % 29 = 0"));
    assertThat(count("SELECT count(*) FROM " + s + ".queue_jobs WHERE id % 13 = 0 AND id % 29 <> 0"
        + " AND (state <> 'SUCCEEDED' OR transient_retries <> 1)")).as("transiently failed jobs retried once").isZero();
    assertThat(count("SELECT count(DISTINCT collector) FROM " + s + ".worker_outcomes"))
        .as("collectors that did work").isGreaterThan(TAGS.size());
    System.out.println("CrossProcessQueueTest: " + expectedJobs + " jobs, " + REQUESTS + " requests, "
        + workers.size() + " JVMs in " + millis + " ms; max in progress " + maxInProgress.get() + " over "
        + samples.get() + " samples");
  }

  /** What is left to do: jobs and requests not done, by state, leases held, outcomes recorded. */
  private String outstanding(int expectedJobs) {
    String s = db.schema;
    return "jobs not terminal by state " + db.strings("SELECT state || '=' || count(*) FROM " + s + ".queue_jobs"
        + " WHERE state NOT IN ('SUCCEEDED', 'FAILED') GROUP BY state ORDER BY state")
        + ", requests not completed by state " + db.strings("SELECT state || '=' || count(*) FROM " + s
        + ".queue_requests WHERE state <> 'COMPLETED' GROUP BY state ORDER BY state")
        + ", leases held " + count("SELECT count(*) FROM " + s + ".queue_leases")
        + ", terminal outcomes recorded " + count("SELECT count(*) FROM " + s + ".worker_outcomes") + " of "
        + expectedJobs + " jobs (" + count("SELECT count(*) FROM " + s + ".queue_jobs") + " created)";
  }

  /** Each worker's exit status (or that it still runs) and output. */
  private String report() {
    StringBuilder out = new StringBuilder();
    for (WorkerProcess w : workers) {
      out.append("--- ").append(w.label).append(w.process.isAlive() ? " running" : " exit " + w.process.exitValue())
          .append('\n').append(w.output());
    }
    return out.toString();
  }

  private long count(String sql) {
    return db.count(sql);
  }
}

package dev.cipolicy.benchmarks.fleet;

import com.sun.management.OperatingSystemMXBean;
import dev.cipolicy.benchmarks.postgres.PgQueueHarness;
import dev.cipolicy.fleet.collector.CiJobRunner;
import dev.cipolicy.fleet.job.CiJob;
import dev.cipolicy.fleet.job.CiJobArgs;
import dev.cipolicy.fleet.workspace.GitWorkspaces;
import dev.cipolicy.postgres.PostgresQueueOptions;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.postgres.PostgresQueueWakeups;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.worker.CollectorRuntime;
import dev.cipolicy.queue.worker.Wakeups;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The latencies a CI user feels on a fleet, measured end to end on a real PostgreSQL server with one in-process
 * collector (the runtime {@code ci-policy fleet collector} runs: NOTIFY wake-ups, {@link CiJobRunner} with a git
 * workspace per job from a local bare repository, the command as a real process tree):
 *
 * <ol>
 *   <li><b>submit to start</b>: from just before {@link JobQueue#submitCiRun} to the job's command writing its
 *       first line (a real process, after the commit's checkout), on an idle fleet; median and p99 of
 *       {@code --starts} runs;
 *   <li><b>cancel to gone</b>: from the run's cancellation (what {@code fleet submit} does on SIGTERM) to the
 *       job's process no longer existing; median and max of {@code --cancels} runs, against the bound of one
 *       heartbeat interval plus 1 s;
 *   <li><b>log streaming</b>: the collector process's CPU time while a job writes {@code --log-mb} MB of output
 *       over {@code --log-seconds} s, against the same job writing the same bytes to {@code /dev/null}, as a
 *       share of one core over the job's run; and the bytes the store keeps for the job's log.
 * </ol>
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.cipolicy.benchmarks.fleet.FleetLatency [--url=JDBC] [--starts=50]
 *     [--cancels=10] [--log-mb=100] [--log-seconds=30]
 * </pre>
 */
public final class FleetLatency {
  private static final String SCHEMA = "bench_fleet_latency";
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration HEARTBEAT = Duration.ofSeconds(2);

  private FleetLatency() {}

  /**
   * Runs the three measurements and prints their figures.
   *
   * @param args {@code --name=value} options, see the class comment
   * @throws Exception when the server or git cannot be used
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = PgQueueHarness.options(args);
    int starts = Integer.parseInt(opts.getOrDefault("starts", "50"));
    int cancels = Integer.parseInt(opts.getOrDefault("cancels", "10"));
    int logMb = Integer.parseInt(opts.getOrDefault("log-mb", "100"));
    int logSeconds = Integer.parseInt(opts.getOrDefault("log-seconds", "30"));
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(PgQueueHarness.url(opts));
    ds.setUser(opts.getOrDefault("user", "postgres"));
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
    }
    Path root = Files.createTempDirectory("fleet-latency");
    String sha = bareRepository(root);
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, SCHEMA), QueueSettings.builder().noJobs(true)
        .leaseDuration(LEASE).collectorTimeout(LEASE).build());
    PostgresQueueWakeups wakeups = PostgresQueueWakeups.start(ds, PostgresQueueOptions.inSchema(SCHEMA));
    CollectorRuntime runtime = CollectorRuntime.builder(queue).name("host-a").tag("gpu").devices(Devices.count(8))
        .runner(new CiJobRunner(new GitWorkspaces(root.resolve("cache"), root.resolve("work"),
            GitWorkspaces.DEFAULT_TIMEOUT, "git"), Map.of("acme/demo", root.resolve("remote.git").toString()), "", ""))
        .concurrency(8).heartbeatInterval(HEARTBEAT)
        .wakeups(Wakeups.of(wakeups::generation, wakeups::awaitQueued))
        .shutdownGrace(Duration.ofSeconds(5)).start();
    AtomicLong runIds = new AtomicLong(1);
    try {
      System.out.println("# fleet latency on " + PgQueueHarness.url(opts) + ", " + Runtime.getRuntime().availableProcessors()
          + " cores, heartbeat " + HEARTBEAT.toSeconds() + " s");
      submitToStart(queue, root, sha, runIds, starts);
      cancelToGone(queue, root, sha, runIds, cancels);
      logStreaming(queue, ds, root, sha, runIds, logMb, logSeconds);
    } finally {
      runtime.close(Duration.ofSeconds(10));
      wakeups.close();
    }
  }

  private static void submitToStart(JobQueue queue, Path root, String sha, AtomicLong runIds, int n)
      throws Exception {
    // one warm-up run fills the cached clone, as a host that has run a job of the repository before
    List<Long> millis = new ArrayList<>();
    for (int i = -1; i < n; i++) {
      Path mark = root.resolve("start-" + i);
      long t0 = System.currentTimeMillis();
      Request r = submit(queue, sha, runIds, List.of("sh", "-c", "date +%s%3N > " + mark));
      String text = awaitFile(mark, Duration.ofSeconds(60));
      if (i >= 0) {
        millis.add(Long.parseLong(text.strip()) - t0);
      }
      awaitDone(queue, r);
    }
    Collections.sort(millis);
    System.out.printf(Locale.ROOT, "submit-to-start: n=%d median=%d ms p99=%d ms max=%d ms (target < 1000 ms)%n",
        n, pct(millis, 0.5), pct(millis, 0.99), millis.get(millis.size() - 1));
  }

  private static void cancelToGone(JobQueue queue, Path root, String sha, AtomicLong runIds, int n)
      throws Exception {
    List<Long> millis = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path pid = root.resolve("pid-" + i);
      // a child that ignores nothing and a grandchild: the whole tree must go
      Request r = submit(queue, sha, runIds, List.of("sh", "-c", "sleep 600 & echo $$ > " + pid + "; wait"));
      long p = Long.parseLong(awaitFile(pid, Duration.ofSeconds(60)).strip());
      Thread.sleep((long) (Math.random() * HEARTBEAT.toMillis()));
      long t0 = System.nanoTime();
      queue.cancel(r.id(), "latency harness");
      while (ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)) {
        Thread.sleep(5);
      }
      millis.add((System.nanoTime() - t0) / 1_000_000);
      awaitDone(queue, r);
    }
    Collections.sort(millis);
    System.out.printf(Locale.ROOT, "cancel-to-gone: n=%d median=%d ms max=%d ms (bound: heartbeat %d ms + 1000 ms)%n",
        n, pct(millis, 0.5), millis.get(millis.size() - 1), HEARTBEAT.toMillis());
  }

  private static void logStreaming(JobQueue queue, PGSimpleDataSource ds, Path root, String sha, AtomicLong runIds,
      int mb, int seconds) throws Exception {
    // each second writes mb/seconds MB of 100-byte lines
    long linesPerSecond = (long) mb * 1_000_000 / 100 / seconds;
    String writer = "i=0; while [ $i -lt " + seconds + " ]; do yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' | head -n " + linesPerSecond + "; sleep 1;"
        + " i=$((i+1)); done";
    double quiet = collectorCpu(queue, root.resolve("quiet"), sha, runIds, "(" + writer + ") > /dev/null");
    double logged = collectorCpu(queue, root.resolve("logged"), sha, runIds, writer);
    long kept;
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT coalesce(max(octet_length(head) + octet_length(tail)), 0) FROM "
            + SCHEMA + ".queue_job_logs")) {
      rs.next();
      kept = rs.getLong(1);
    } catch (SQLException e) {
      kept = -1;
    }
    System.out.printf(Locale.ROOT, "log-streaming: %d MB over %d s: collector CPU %.1f %% of a core with the log"
        + " streamed, %.1f %% with it sent to /dev/null: %.1f %% extra (target < 5 %%); store keeps %d bytes of"
        + " the log (bound 131072)%n", mb, seconds, logged * 100, quiet * 100, (logged - quiet) * 100, kept);
  }

  /**
   * The collector process's CPU time while one job runs, as a share of one core over the job's wall time. The
   * harness waits for the job's end marker by looking for a file every 100 ms, so its own CPU is negligible.
   */
  private static double collectorCpu(JobQueue queue, Path mark, String sha, AtomicLong runIds, String script)
      throws Exception {
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    Request r = submit(queue, sha, runIds, List.of("sh", "-c", script + "; echo done > " + mark));
    while (!Files.exists(mark)) {
      Thread.sleep(100);
    }
    double share = (double) (os.getProcessCpuTime() - cpu0) / (System.nanoTime() - t0);
    awaitDone(queue, r);
    return share;
  }

  private static Request submit(JobQueue queue, String sha, AtomicLong runIds, List<String> command) {
    String args = CiJobArgs.write(CiJob.builder().repository("acme/demo").commit(sha).command(command)
        .deviceEnv(List.of("CUDA_VISIBLE_DEVICES")).build());
    JobSpec job = JobSpec.required("job", "gpu").withGpus(1, Duration.ofMinutes(1)).withArgs(args)
        .withTimeout(Duration.ofMinutes(30));
    return queue.submitCiRun(CiRun.of("acme/demo", runIds.getAndIncrement(), 1, sha, "push"), List.of(job))
        .request();
  }

  private static void awaitDone(JobQueue queue, Request r) throws InterruptedException {
    for (int i = 0; i < 12_000; i++) {
      if (queue.store().jobs(r.id()).stream().allMatch(j -> j.lease().isEmpty()
          && j.state() != dev.cipolicy.queue.model.JobState.QUEUED)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("request " + r.id() + " did not end within 600 s");
  }

  private static String awaitFile(Path file, Duration within) throws Exception {
    long end = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < end) {
      if (Files.exists(file)) {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        if (text.endsWith("\n")) {
          return text;
        }
      }
      Thread.sleep(2);
    }
    throw new IllegalStateException(file + " not written within " + within);
  }

  private static long pct(List<Long> sorted, double p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
  }

  /** A bare repository with one commit; returns its SHA. */
  private static String bareRepository(Path root) throws IOException, InterruptedException {
    Path src = root.resolve("src");
    Files.createDirectories(src);
    Files.writeString(src.resolve("README"), "demo\n");
    git(src, "init", "-q");
    git(src, "-c", "user.name=bench", "-c", "user.email=bench@example.org", "add", ".");
    git(src, "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-qm", "demo");
    git(root, "clone", "-q", "--bare", src.toString(), root.resolve("remote.git").toString());
    return git(src, "rev-parse", "HEAD").strip();
  }

  private static String git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("git " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }
}

package dev.cipolicy.benchmarks.fleet;

import dev.cipolicy.api.policy.FleetShare;
import dev.cipolicy.benchmarks.postgres.PgQueueHarness;
import dev.cipolicy.fleet.server.FleetServer;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.ResultPayload;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The fleet server's page endpoints under a full queue, on a real PostgreSQL server: fills a fresh schema with
 * {@code --runs} CI runs of {@code --jobs-per-run} queued jobs each (10,200 by default, over four GPU pools, one
 * run in five nightly), {@code --hosts} registered 8-GPU collectors (200) of which every third holds leases,
 * and {@code --done} completed runs of ten jobs (the history and the accounting), then starts the fleet server
 * on that store (its site loop ticking) and times {@code --requests} sequential GETs of each page endpoint
 * (after 20 unmeasured ones), first with the overview computed on every request (the server before
 * {@code LiveView}; {@code --per-request-requests}, 20 by default, as each takes seconds), then with the server's
 * default refresh. {@code --reuse=true} measures the schema a previous run filled (the site loop has ticked it
 * since). The store reads through a HikariCP pool of {@code --pool} connections, 4 by default as
 * {@code ci-policy fleet serve --store} ({@code --store-pool}); {@code --pool=0} opens a connection per store call,
 * as that command did before. Besides the page's endpoints it times a filtered page of the overview, a filtered
 * queue and a filtered page of the waiting jobs. Before each mode's requests it times {@code --computes} direct
 * computations of the overview (5). {@code --gzip=true} accepts gzip answers, as a browser does (the bytes are
 * then those sent). Prints p50 and p99 per endpoint and mode, and the machine's load average before and after.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.cipolicy.benchmarks.fleet.FleetServerLoad [--url=JDBC]
 *     [--runs=204] [--jobs-per-run=50] [--hosts=200] [--done=30] [--requests=300] [--per-request-requests=20]
 *     [--modes=per-request,refreshed] [--reuse=false] [--pool=4] [--computes=5] [--gzip=false]
 * </pre>
 */
public final class FleetServerLoad {
  private static final String SCHEMA = "bench_fleet_server_load";
  private static final List<String> POOLS = List.of("h100", "h200", "b200", "mi350");
  private static final List<String> ENDPOINTS = List.of("/api/v1/overview", "/api/v1/waiting-jobs",
      "/api/v1/queue", "/api/v1/hosts", "/api/v1/collectors", "/api/v1/shares", "/api/v1/history?limit=10",
      "/api/v1/accounting?window=7d", "/api/v1/overview?pool=h200&offset=2000", "/api/v1/queue?pool=h100",
      "/api/v1/waiting-jobs?state=waiting&cadence=nightly&offset=500&limit=500");

  private FleetServerLoad() {}

  /**
   * Fills the store, then measures.
   *
   * @param args {@code --name=value} options, see the class comment
   * @throws Exception when the server cannot be used
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = PgQueueHarness.options(args);
    int runs = Integer.parseInt(opts.getOrDefault("runs", "204"));
    int jobsPerRun = Integer.parseInt(opts.getOrDefault("jobs-per-run", "50"));
    int hosts = Integer.parseInt(opts.getOrDefault("hosts", "200"));
    int done = Integer.parseInt(opts.getOrDefault("done", "30"));
    int requests = Integer.parseInt(opts.getOrDefault("requests", "300"));
    int computes = Integer.parseInt(opts.getOrDefault("computes", "5"));
    int beforeRequests = Integer.parseInt(opts.getOrDefault("per-request-requests", "20"));
    List<String> modes = List.of(opts.getOrDefault("modes", "per-request,refreshed").split(","));
    PGSimpleDataSource simple = new PGSimpleDataSource();
    simple.setURL(PgQueueHarness.url(opts));
    simple.setUser(opts.getOrDefault("user", "postgres"));
    int poolSize = Integer.parseInt(opts.getOrDefault("pool", "4"));
    javax.sql.DataSource ds = simple;
    if (poolSize > 0) {
      com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
      config.setDataSource(simple);
      config.setMaximumPoolSize(poolSize);
      ds = new com.zaxxer.hikari.HikariDataSource(config);
    }
    boolean reuse = Boolean.parseBoolean(opts.getOrDefault("reuse", "false"));
    gzip = Boolean.parseBoolean(opts.getOrDefault("gzip", "false"));
    if (!reuse) {
      try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
      }
    }
    JobQueue queue = JobQueue.of(PostgresQueueStore.create(ds, SCHEMA), QueueSettings.builder().noJobs(true)
        .leaseDuration(Duration.ofHours(2)).collectorTimeout(Duration.ofHours(2)).build());
    List<FleetShare> shares = List.of(FleetShare.gpus("nightly", "h200", 64),
        FleetShare.gpus("nightly", "h100", 64));
    long t0 = System.nanoTime();
    if (!reuse) {
      fill(queue, runs, jobsPerRun, hosts, done);
    }
    System.out.printf(Locale.ROOT, "# fleet server load on %s (schema %s), %d cores, %s, %s in %.1f s%n",
        PgQueueHarness.url(opts), SCHEMA, Runtime.getRuntime().availableProcessors(),
        poolSize > 0 ? "a pool of " + poolSize + " connections" : "a connection per store call",
        reuse ? "reused" : "filled", (System.nanoTime() - t0) / 1e9);
    count(ds);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (String mode : modes) {
      FleetServer.Builder b = FleetServer.builder(queue).shares(shares).port(0)
          .onSiteError(e -> System.out.println("# a site tick or a refresh failed: " + e));
      if (mode.equals("per-request")) {
        b.viewRefresh(null);
      } else if (!mode.equals("refreshed")) {
        throw new IllegalArgumentException("mode '" + mode + "' is not per-request or refreshed");
      }
      String before = loadAverage();
      try (FleetServer server = b.start()) {
        System.out.printf(Locale.ROOT, "%n## mode %s (load average before: %s)%n", mode, before);
        List<Double> compute = new ArrayList<>();
        for (int i = 0; i < computes; i++) {
          long s = System.nanoTime();
          server.view().overview();
          compute.add((System.nanoTime() - s) / 1e6);
        }
        Collections.sort(compute);
        if (!compute.isEmpty()) {
          System.out.printf(Locale.ROOT, "overview computed directly %d times: median %.0f ms, max %.0f ms%n",
              computes, pct(compute, 50), compute.get(compute.size() - 1));
        }
        System.out.println("| endpoint | requests | p50 ms | p99 ms | max ms | bytes |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        for (String path : ENDPOINTS) {
          URI uri = URI.create("http://127.0.0.1:" + server.port() + path);
          int bytes = 0;
          int n = mode.equals("per-request") ? beforeRequests : requests;
          for (int i = 0; i < Math.min(20, n); i++) {
            bytes = get(http, uri).length;
          }
          List<Double> millis = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            get(http, uri);
            millis.add((System.nanoTime() - s) / 1e6);
          }
          Collections.sort(millis);
          System.out.printf(Locale.ROOT, "| `%s` | %d | %.1f | %.1f | %.1f | %d |%n", path, n,
              pct(millis, 50), pct(millis, 99), millis.get(millis.size() - 1), bytes);
        }
      }
      System.out.println("load average after: " + loadAverage());
    }
  }

  private static void fill(JobQueue queue, int runs, int jobsPerRun, int hosts, int done) {
    // the completed part: ten 1-GPU jobs per run on four a100 hosts, each completed with its run time
    for (int h = 0; h < 4; h++) {
      queue.registerHost("a100-" + h, "a100", Devices.count(8));
    }
    long runId = 1;
    for (int r = 0; r < done; r++) {
      List<JobSpec> jobs = new ArrayList<>();
      for (int j = 0; j < 10; j++) {
        jobs.add(JobSpec.required("done-" + j, "a100").withGpus(1 + (j % 2) * 7, Duration.ofMinutes(20)));
      }
      CiRun run = CiRun.of("acme/models", runId++, 1, sha(r), "push");
      queue.submitCiRun(r % 5 == 0 ? run.withCadence("nightly") : run, jobs);
      int left = jobs.size();
      while (left > 0) {
        for (int h = 0; h < 4 && left > 0; h++) {
          for (Claim c : queue.claim("a100-" + h, 8).claims()) {
            queue.complete(c.lease(), ResultPayload.ofText("{\"seconds\": " + (600 + 30 * left) + "}"));
            left--;
          }
        }
      }
      queue.tick();
    }
    for (int h = 0; h < hosts; h++) {
      queue.registerHost(POOLS.get(h % POOLS.size()) + "-" + h, POOLS.get(h % POOLS.size()), Devices.count(8));
    }
    int[] gpus = {1, 2, 4, 8};
    for (int r = 0; r < runs; r++) {
      List<JobSpec> jobs = new ArrayList<>();
      for (int j = 0; j < jobsPerRun; j++) {
        jobs.add(JobSpec.required("suite-" + j, POOLS.get((r + j) % POOLS.size()))
            .withGpus(gpus[j % gpus.length], Duration.ofMinutes(10 + j)));
      }
      CiRun run = CiRun.of("acme/models", runId++, 1, sha(1000 + r), "push");
      queue.submitCiRun(r % 5 == 0 ? run.withCadence("nightly") : run, jobs);
    }
    for (int h = 0; h < hosts; h += 3) {
      queue.claim(POOLS.get(h % POOLS.size()) + "-" + h, 8);
    }
    queue.tick();
  }

  private static void count(javax.sql.DataSource ds) throws Exception {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT state, count(*) FROM " + SCHEMA + ".queue_jobs GROUP BY state ORDER BY state")) {
      StringBuilder b = new StringBuilder("# jobs by state:");
      while (rs.next()) {
        b.append(' ').append(rs.getString(1)).append('=').append(rs.getLong(2));
      }
      System.out.println(b);
    } catch (java.sql.SQLException e) {
      System.out.println("# jobs by state: not read (" + e.getMessage() + ")");
    }
  }

  private static String sha(int n) {
    return String.format(Locale.ROOT, "%040x", n + 1);
  }

  /** Whether the requests accept a gzip answer, as a browser's do ({@code --gzip=true}). */
  private static boolean gzip;

  private static byte[] get(HttpClient http, URI uri) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).GET();
    if (gzip) {
      request.header("Accept-Encoding", "gzip");
    }
    HttpResponse<byte[]> r = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(uri + " answered " + r.statusCode() + ": "
          + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
    }
    return r.body();
  }

  private static double pct(List<Double> sorted, double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}

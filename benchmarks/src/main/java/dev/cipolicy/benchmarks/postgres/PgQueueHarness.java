package dev.cipolicy.benchmarks.postgres;

import dev.cipolicy.postgres.PostgresTimeouts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The PostgreSQL queue benchmark (docs/performance.md, "PostgreSQL queue vs db-scheduler"): drains a backlog
 * of pre-enqueued no-op jobs with 1, 8 and 32 collector threads through
 * <ul>
 *   <li>{@code store-per-job}: {@code PostgresQueueStore}, claim one job, complete it;
 *   <li>{@code store-complete-and-claim}: {@code PostgresQueueStore}, one job at a time, each completion
 *       claiming the next job in the same call ({@code completeAndClaim}, one transaction);
 *   <li>{@code store-batched-B}: {@code PostgresQueueStore}, claim up to B jobs, complete each;
 *   <li>{@code store-batch-complete-B}: {@code PostgresQueueStore}, claim up to B jobs, complete them all
 *       with one {@code completeAll};
 *   <li>{@code db-scheduler-L-U}: db-scheduler's PostgreSQL scheduler with lock-and-fetch polling
 *       ({@code pollUsingLockAndFetch(L, U)}), once with the documented "normal" setting 0.5/1.0 and once
 *       with the documented high-throughput setting 1.0/4.0;
 *   <li>{@code floor-list}, {@code floor-one-table} and {@code floor-lease-table} ({@code floor}): the least a one-job-at-a-time queue
 *       can do per job, one statement that completes the previous job and claims the next (see
 *       {@link FloorRun});
 * </ul>
 * and measures the server's single-row {@code UPDATE ... RETURNING} rate with pgbench at the same client
 * counts. Every configuration runs once per round, rounds interleaved, so that the machine's changing load
 * reaches all of them alike. Each run works in a fresh schema that it drops.
 *
 * <p>A harness rather than JMH: db-scheduler owns its threads and polling loop, so the one measurement that
 * means the same for all three is "time until a backlog of N jobs is drained", and the counters (client and
 * server) must bracket exactly that interval.
 *
 * <p>Arguments ({@code --name=value}, all optional): {@code url} (default {@code CI_POLICY_PG_URL} or
 * {@code jdbc:postgresql://127.0.0.1:5432/test}), {@code user} ({@code postgres}), {@code threads}
 * ({@code 1,8,32}), {@code jobs} (jobs per run by thread count, {@code 1:5000,8:20000,32:20000}),
 * {@code rounds} (2), {@code batch} (claim limits of the batched mode, {@code 16}), {@code warmup} (jobs per
 * warm-up run of the JVM, 2000), {@code lead} (completions of each run before its measured window opens, on
 * the same pool, 10000; 0 measures from a freshly opened pool), {@code pgbench-seconds} (10), {@code systems} (comma-separated subset of
 * {@code store-per-job,store-complete-and-claim,store-batched,store-batch-complete,db-scheduler,pgbench}, plus
 * {@code server-limits-store-per-job}, {@code server-limits-store-complete-and-claim} and
 * {@code server-limits-store-batch-complete}: the same modes with
 * {@code PostgresTimeouts.serverSettings()}, to measure what the store's default time limits cost).
 */
public final class PgQueueHarness {

  private PgQueueHarness() {
  }

  /**
   * Runs the benchmark and prints every run and a summary.
   *
   * @param args {@code --name=value} options, see the class comment
   */
  public static void main(String[] args) {
    Map<String, String> opts = options(args);
    String url = url(opts);
    BenchDatabase db = new BenchDatabase(url, opts.getOrDefault("user", "postgres"));
    List<Integer> threadCounts = ints(opts.getOrDefault("threads", "1,8,32"));
    Map<Integer, Integer> jobs = jobs(opts.getOrDefault("jobs", "1:5000,8:20000,32:20000"));
    int rounds = Integer.parseInt(opts.getOrDefault("rounds", "2"));
    List<Integer> batches = ints(opts.getOrDefault("batch", "16"));
    int warmup = Integer.parseInt(opts.getOrDefault("warmup", "2000"));
    int lead = Integer.parseInt(opts.getOrDefault("lead", "10000"));
    int pgbenchSeconds = Integer.parseInt(opts.getOrDefault("pgbench-seconds", "10"));
    List<String> systems = List.of(opts.getOrDefault("systems",
        "store-per-job,store-complete-and-claim,store-batched,store-batch-complete,db-scheduler,pgbench")
        .split(","));

    String pgbench = Pgbench.executable();
    System.out.println("# PostgreSQL queue benchmark");
    System.out.println("server: " + db.queryText("SELECT version()"));
    System.out.println("url: " + url + ", shared_preload_libraries = '" + db.preloadLibraries() + "'"
        + " (pg_stat_statements " + (db.preloadLibraries().contains("pg_stat_statements") ? "loaded" : "not loaded")
        + ": statements and commits are counted on the client side)");
    System.out.println("synchronous_commit = " + db.queryText("SELECT current_setting('synchronous_commit')")
        + ", fsync = " + db.queryText("SELECT current_setting('fsync')")
        + ", max_connections = " + db.queryText("SELECT current_setting('max_connections')"));
    System.out.println("java " + System.getProperty("java.version") + ", " + Runtime.getRuntime().availableProcessors()
        + " cores, pgbench: " + (pgbench.isEmpty() ? "not found" : Pgbench.version(pgbench)));
    System.out.println("threads " + threadCounts + ", jobs " + jobs + " measured after a lead of " + lead
        + " unmeasured completions on the same pool, rounds " + rounds + ", batch sizes " + batches);
    System.out.println();

    if (warmup > 0) {
      System.out.println("warm-up (" + warmup + " jobs each, 8 threads, not reported)");
      for (String system : systems) {
        runQueue(db, system, 8, batches, 0, warmup, 0);
      }
    }
    List<RunResult> results = new ArrayList<>();
    Map<String, Double> pgbenchTps = new TreeMap<>();
    for (int round = 1; round <= rounds; round++) {
      for (int threads : threadCounts) {
        int n = jobs.getOrDefault(threads, 20_000);
        for (String system : systems) {
          if (system.equals("pgbench")) {
            if (!pgbench.isEmpty()) {
              double tps = Pgbench.tps(db, pgbench, threads, pgbenchSeconds);
              pgbenchTps.put(round + "/" + threads, tps);
              System.out.printf(Locale.ROOT, "round %d | %-26s | %2d clients | %8s tx/s (single-row UPDATE ..."
                  + " RETURNING, 1 statement and 1 commit each) | load %.1f%n", round, "pgbench", threads,
                  Pgbench.format(tps), Load.now());
            }
            continue;
          }
          List<RunResult> got = runQueue(db, system, threads, batches, lead, n, round);
          for (RunResult r : got) {
            System.out.println(r.line());
          }
          results.addAll(got);
        }
      }
    }
    summary(results, pgbenchTps, threadCounts, rounds);
    oneJobRatios(results, threadCounts, rounds);
  }

  /** Parses {@code --name=value} arguments. */
  public static Map<String, String> options(String[] args) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("expected --name=value, got '" + arg + "'");
      }
      opts.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    return opts;
  }

  /** The JDBC URL: {@code --url}, else {@code CI_POLICY_PG_URL}, else the local test database. */
  public static String url(Map<String, String> opts) {
    String envUrl = System.getenv("CI_POLICY_PG_URL");
    return opts.getOrDefault("url", envUrl == null || envUrl.isBlank()
        ? "jdbc:postgresql://127.0.0.1:5432/test" : envUrl);
  }

  private static List<RunResult> runQueue(BenchDatabase db, String system, int threads, List<Integer> batches,
      int lead, int jobs, int round) {
    return switch (system) {
      case "store-per-job" -> List.of(StoreRun.run(db, "store-per-job", threads, 1, lead, jobs, round));
      case "server-limits-store-per-job" -> List.of(StoreRun.run(db, "server-limits-store-per-job", threads, 1, false,
          PostgresTimeouts.serverSettings(), lead, jobs, round));
      case "server-limits-store-batch-complete" -> batches.stream()
          .map(b -> StoreRun.run(db, "server-limits-store-batch-complete-" + b, threads, b, true,
              PostgresTimeouts.serverSettings(), lead, jobs, round)).toList();
      case "store-complete-and-claim" -> List.of(StoreRun.runCompleteAndClaim(db, "store-complete-and-claim",
          threads, PostgresTimeouts.defaults(), lead, jobs, round));
      case "server-limits-store-complete-and-claim" -> List.of(StoreRun.runCompleteAndClaim(db,
          "server-limits-store-complete-and-claim", threads, PostgresTimeouts.serverSettings(), lead, jobs, round));
      case "store-batched" -> batches.stream()
          .map(b -> StoreRun.run(db, "store-batched-" + b, threads, b, lead, jobs, round)).toList();
      case "store-batch-complete" -> batches.stream()
          .map(b -> StoreRun.run(db, "store-batch-complete-" + b, threads, b, true, lead, jobs, round)).toList();
      case "db-scheduler" -> List.of(
          DbSchedulerRun.run(db, "db-scheduler-0.5-1.0", threads, 0.5, 1.0, lead, jobs, round),
          DbSchedulerRun.run(db, "db-scheduler-1.0-4.0", threads, 1.0, 4.0, lead, jobs, round));
      case "floor" -> List.of(FloorRun.run(db, "floor-list", FloorRun.Layout.LIST, threads, lead, jobs, round),
          FloorRun.run(db, "floor-one-table", FloorRun.Layout.ONE_TABLE, threads, lead, jobs, round),
          FloorRun.run(db, "floor-lease-table", FloorRun.Layout.LEASE_TABLE, threads, lead, jobs, round));
      case "pgbench" -> List.of();
      default -> throw new IllegalArgumentException("unknown system '" + system
          + "'; expected store-per-job, store-complete-and-claim, store-batched, store-batch-complete, db-scheduler,"
          + " floor or pgbench");
    };
  }

  private static void summary(List<RunResult> results, Map<String, Double> pgbenchTps, List<Integer> threadCounts,
      int rounds) {
    System.out.println();
    System.out.println("## Summary (jobs/s per round; per-job counts from the last round)");
    System.out.println();
    StringBuilder header = new StringBuilder("| threads | system |");
    StringBuilder rule = new StringBuilder("|---:|---|");
    for (int round = 1; round <= rounds; round++) {
      header.append(" round ").append(round).append(" jobs/s |");
      rule.append("---:|");
    }
    header.append(" spread | stmt/job | round trips/job | commits/job | server rows written/job |");
    rule.append("---:|---:|---:|---:|---:|");
    System.out.println(header);
    System.out.println(rule);
    Map<String, Map<Integer, RunResult>> byConfig = new LinkedHashMap<>();
    for (RunResult r : results) {
      byConfig.computeIfAbsent(r.threads() + "|" + r.system(), k -> new TreeMap<>()).put(r.round(), r);
    }
    for (int threads : threadCounts) {
      for (Map.Entry<String, Map<Integer, RunResult>> e : byConfig.entrySet()) {
        if (!e.getKey().startsWith(threads + "|")) {
          continue;
        }
        StringBuilder row = new StringBuilder("| " + threads + " | " + e.getKey().substring(e.getKey().indexOf('|') + 1)
            + " |");
        double min = Double.MAX_VALUE;
        double max = 0;
        RunResult last = null;
        for (RunResult r : e.getValue().values()) {
          row.append(String.format(Locale.ROOT, " %.0f |", r.jobsPerSecond()));
          min = Math.min(min, r.jobsPerSecond());
          max = Math.max(max, r.jobsPerSecond());
          last = r;
        }
        if (last == null) {
          continue;
        }
        row.append(String.format(Locale.ROOT, " %.0f %% | %.2f | %.2f | %.2f | %.2f |", 100 * (max - min) / max,
            last.perJob(last.client().statements()), last.perJob(last.client().roundTrips()),
            last.perJob(last.client().commits()), last.perServerJob(last.server().rowsWritten())));
        System.out.println(row);
      }
      StringBuilder row = new StringBuilder("| " + threads + " | pgbench UPDATE ... RETURNING (tx/s) |");
      double min = Double.MAX_VALUE;
      double max = 0;
      boolean any = false;
      for (int round = 1; round <= rounds; round++) {
        Double tps = pgbenchTps.get(round + "/" + threads);
        row.append(tps == null ? " - |" : " " + Pgbench.format(tps) + " |");
        if (tps != null) {
          any = true;
          min = Math.min(min, tps);
          max = Math.max(max, tps);
        }
      }
      if (any) {
        row.append(String.format(Locale.ROOT, " %.0f %% | 1 | 1 | 1 | 1 |", 100 * (max - min) / max));
        System.out.println(row);
      }
    }
    System.out.println();
    System.out.println("## Ratios, within each round");
    System.out.println();
    System.out.println("| round | threads | store-batch-complete / best db-scheduler | store-batched / best"
        + " db-scheduler | store-per-job / best db-scheduler | store-batch-complete / pgbench | store-batched /"
        + " pgbench | store-per-job / pgbench |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (int round = 1; round <= rounds; round++) {
      for (int threads : threadCounts) {
        double batchComplete = best(results, round, threads, "store-batch-complete");
        double batched = best(results, round, threads, "store-batched");
        double perJob = best(results, round, threads, "store-per-job");
        double dbs = best(results, round, threads, "db-scheduler");
        Double tpsOrNull = pgbenchTps.get(round + "/" + threads);
        double tps = tpsOrNull == null ? 0 : tpsOrNull;
        System.out.printf(Locale.ROOT, "| %d | %d | %s | %s | %s | %s | %s | %s |%n", round, threads,
            ratio(batchComplete, dbs), ratio(batched, dbs), ratio(perJob, dbs), ratio(batchComplete, tps),
            ratio(batched, tps), ratio(perJob, tps));
      }
    }
  }

  /** The one-job-at-a-time modes against db-scheduler and against the floor, when the run measured them. */
  private static void oneJobRatios(List<RunResult> results, List<Integer> threadCounts, int rounds) {
    if (results.stream().noneMatch(r -> r.system().startsWith("floor"))
        && results.stream().noneMatch(r -> r.system().contains("complete-and-claim"))) {
      return;
    }
    System.out.println();
    System.out.println("## One job at a time, ratios within each round");
    System.out.println();
    System.out.println("| round | threads | store-complete-and-claim / best db-scheduler | server-limits"
        + " complete-and-claim / best db-scheduler | floor-list / best db-scheduler | floor-one-table / best"
        + " db-scheduler | floor-lease-table / floor-list | store-complete-and-claim / floor-list | server-limits"
        + " complete-and-claim / floor-list |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (int round = 1; round <= rounds; round++) {
      for (int threads : threadCounts) {
        double cc = best(results, round, threads, "store-complete-and-claim");
        double limits = best(results, round, threads, "server-limits-store-complete-and-claim");
        double list = best(results, round, threads, "floor-list");
        double oneTable = best(results, round, threads, "floor-one-table");
        double leaseTable = best(results, round, threads, "floor-lease-table");
        double dbs = best(results, round, threads, "db-scheduler");
        System.out.printf(Locale.ROOT, "| %d | %d | %s | %s | %s | %s | %s | %s | %s |%n", round, threads,
            ratio(cc, dbs), ratio(limits, dbs), ratio(list, dbs), ratio(oneTable, dbs), ratio(leaseTable, list),
            ratio(cc, list), ratio(limits, list));
      }
    }
  }

  private static double best(List<RunResult> results, int round, int threads, String prefix) {
    double best = 0;
    for (RunResult r : results) {
      if (r.round() == round && r.threads() == threads && r.system().startsWith(prefix)) {
        best = Math.max(best, r.jobsPerSecond());
      }
    }
    return best;
  }

  private static String ratio(double a, double b) {
    return a == 0 || b == 0 ? "-" : String.format(Locale.ROOT, "%.2f", a / b);
  }

  private static List<Integer> ints(String csv) {
    List<Integer> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      out.add(Integer.parseInt(s.trim()));
    }
    return out;
  }

  private static Map<Integer, Integer> jobs(String spec) {
    Map<Integer, Integer> out = new TreeMap<>();
    for (String s : spec.split(",")) {
      String[] kv = s.split(":");
      if (kv.length != 2) {
        throw new IllegalArgumentException("--jobs expects threads:jobs pairs, e.g. 1:5000,8:20000; got '" + s + "'");
      }
      out.put(Integer.parseInt(kv[0].trim()), Integer.parseInt(kv[1].trim()));
    }
    return out;
  }
}

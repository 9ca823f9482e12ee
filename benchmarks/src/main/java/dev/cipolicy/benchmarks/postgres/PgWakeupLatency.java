package dev.cipolicy.benchmarks.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.postgres.PostgresQueueOptions;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.postgres.PostgresQueueWakeups;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Wake-up latency of an idle collector: the time from enqueueing a job to a collector's claim of it, when
 * the collector polls (claim; when empty, sleep the poll interval) and when it waits with
 * {@link PostgresQueueWakeups} (claim; when empty, wait for a notification, at most the poll interval).
 *
 * <p>A producer enqueues one job at a time (a request of one job, started at once) at random gaps; one
 * collector claims and completes. The latency of a job runs from just before its enqueue call to the return
 * of the claim that got it, so both modes include the enqueue statement's time alike. Modes alternate per
 * round on fresh schemas.
 *
 * <p>Arguments ({@code --name=value}, all optional): {@code url}, {@code user} (as {@link PgQueueHarness}),
 * {@code jobs} per run (100), {@code rounds} (2), {@code poll} interval in ms (1000), {@code gap} between
 * enqueues, minimum and maximum in ms ({@code 50:250}), {@code seed} (1).
 */
public final class PgWakeupLatency {
  private static final String TAG = "bench";

  private PgWakeupLatency() {
  }

  /**
   * Runs both modes and prints the latency distribution of each run.
   *
   * @param args {@code --name=value} options, see the class comment
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = PgQueueHarness.options(args);
    BenchDatabase db = new BenchDatabase(PgQueueHarness.url(opts), opts.getOrDefault("user", "postgres"));
    int jobs = Integer.parseInt(opts.getOrDefault("jobs", "100"));
    int rounds = Integer.parseInt(opts.getOrDefault("rounds", "2"));
    Duration poll = Duration.ofMillis(Long.parseLong(opts.getOrDefault("poll", "1000")));
    String[] gap = opts.getOrDefault("gap", "50:250").split(":");
    long gapMin = Long.parseLong(gap[0]);
    long gapMax = Long.parseLong(gap[gap.length - 1]);
    long seed = Long.parseLong(opts.getOrDefault("seed", "1"));
    System.out.println("# Idle collector wake-up latency (enqueue -> claim), " + jobs + " jobs per run, poll "
        + poll.toMillis() + " ms, gaps " + gapMin + "-" + gapMax + " ms");
    for (int round = 1; round <= rounds; round++) {
      for (boolean notify : new boolean[] {false, true}) {
        double[] ms = run(db, notify, jobs, poll, gapMin, gapMax, seed + round);
        java.util.Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "round %d | %-14s | median %7.1f ms | p90 %7.1f ms | max %7.1f ms"
            + " | mean %7.1f ms | load %.1f%n", round, notify ? "notify+poll" : "poll only", ms[ms.length / 2],
            ms[(int) Math.floor(ms.length * 0.9)], ms[ms.length - 1], java.util.Arrays.stream(ms).average()
                .orElse(0), Load.now());
      }
    }
  }

  private static double[] run(BenchDatabase db, boolean notify, int jobs, Duration poll, long gapMin, long gapMax,
      long seed) throws Exception {
    String schema = BenchDatabase.freshSchema("bench_wakeup");
    HikariDataSource pool = db.pool("wakeup", 4);
    try {
      PostgresQueueOptions options = PostgresQueueOptions.inSchema(schema);
      JobQueue queue = JobQueue.of(PostgresQueueStore.create(pool, options), QueueSettings.withoutJobs());
      queue.registerCollector("c0", TAG, true);
      PostgresQueueWakeups wakeups = notify ? PostgresQueueWakeups.start(pool, options) : null;
      long listenDeadline = System.nanoTime() + 10_000_000_000L;
      while (wakeups != null && !wakeups.listening()) {
        if (System.nanoTime() > listenDeadline) {
          throw new IllegalStateException("the wake-up listener did not connect: " + wakeups.lastError());
        }
        Thread.sleep(10);
      }
      Map<RequestId, Long> enqueuedAt = new ConcurrentHashMap<>();
      List<Double> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread collector = new Thread(() -> {
        try {
          while (latencies.size() < jobs) {
            long seen = wakeups == null ? 0 : wakeups.generation(TAG);
            ClaimResult claimed = queue.claim("c0", 16);
            long now = System.nanoTime();
            for (Claim c : claimed.claims()) {
              Long t0 = enqueuedAt.get(c.job().requestId());
              latencies.add((now - (t0 == null ? now : t0)) / 1e6);
              if (!queue.complete(c.lease()).ok()) {
                throw new IllegalStateException("could not complete " + c.lease());
              }
            }
            if (claimed.claims().isEmpty()) {
              if (wakeups == null) {
                Thread.sleep(poll.toMillis());
              } else {
                wakeups.awaitQueued(TAG, seen, poll);
              }
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "collector");
      collector.start();
      Random random = new Random(seed);
      Thread.sleep(poll.toMillis() / 2); // the collector is idle, waiting, when the first job comes
      for (int i = 0; i < jobs && failure.get() == null; i++) {
        RequestId id = queue.submit(NewRequest.master("r" + i, null)).request().id();
        enqueuedAt.put(id, System.nanoTime());
        StartResult started = queue.store().startRequest(StartCommand.builder().requestId(id)
            .jobs(List.of(JobSpec.required("g", TAG))).maxInProgress(Integer.MAX_VALUE).build());
        if (started.status() != StartResult.Status.STARTED) {
          throw new IllegalStateException("could not start request " + id + ": " + started.status());
        }
        Thread.sleep(gapMin + (long) (random.nextDouble() * (gapMax - gapMin)));
      }
      collector.join(60_000 + poll.toMillis() * 2);
      if (wakeups != null) {
        wakeups.close();
      }
      if (failure.get() != null) {
        throw new IllegalStateException("collector failed: " + failure.get(), failure.get());
      }
      if (latencies.size() != jobs) {
        throw new IllegalStateException("claimed " + latencies.size() + " of " + jobs + " jobs");
      }
      return latencies.stream().mapToDouble(Double::doubleValue).toArray();
    } finally {
      db.closeAndAwaitGone(pool);
      db.dropSchema(schema);
    }
  }
}

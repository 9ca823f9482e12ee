package dev.cipolicy.benchmarks.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.postgres.PostgresQueueOptions;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Claim latency of {@code PostgresQueueStore} with GPU budgets on: {@code collectors} collectors (threads)
 * spread over {@code pools} pools (tags), each advertising {@code devices} GPUs, drain a backlog of jobs that
 * need 1, 2, 4 or {@code devices} GPUs (cycling) with estimates of 5 to 40 minutes. A collector claims one job
 * whenever it has a device free, "runs" each job for its estimate divided by {@code scale} (default 60,000: one
 * estimated minute runs one millisecond) and completes it; with nothing claimable it waits for its next
 * running job to end (at most 5 ms). A wide job at the head of a pool that no host can fit gets a
 * reservation, and narrower jobs backfill around it, so the claims exercise the placement, the reservation and
 * the backfill inside the claim transaction (each GPU claim of a pool is serialized by the pool's lock).
 *
 * <p>It reports the wall time of every claim call, separately for calls that got a job and calls that got
 * none (including calls that gave up after the store's lock timeout waiting for the pool's lock, counted apart
 * and retried on the collector's next iteration), as p50, p90, p99 and max, plus jobs per second and the device utilization (device-time of the runs
 * over devices times the drain's duration). A site thread ticks once a second, as in every deployment.
 *
 * <p>Arguments ({@code --name=value}, all optional): {@code url}, {@code user} (as {@link PgQueueHarness}),
 * {@code collectors} (32), {@code pools} (4), {@code devices} per collector (8), {@code jobs} per run (4000),
 * {@code rounds} (2), {@code scale} (60000), {@code warmup} jobs of an unreported first run (1000).
 */
public final class PgGpuClaimLatency {

  private PgGpuClaimLatency() {
  }

  /** One run's measurements. */
  private record Measured(double[] withJob, double[] empty, int timeouts, int jobs, double seconds,
      double utilization) {
  }

  /**
   * Runs the drains and prints the latency distribution of each.
   *
   * @param args {@code --name=value} options, see the class comment
   */
  public static void main(String[] args) {
    Map<String, String> opts = PgQueueHarness.options(args);
    BenchDatabase db = new BenchDatabase(PgQueueHarness.url(opts), opts.getOrDefault("user", "postgres"));
    int collectors = Integer.parseInt(opts.getOrDefault("collectors", "32"));
    int pools = Integer.parseInt(opts.getOrDefault("pools", "4"));
    int devices = Integer.parseInt(opts.getOrDefault("devices", "8"));
    int jobs = Integer.parseInt(opts.getOrDefault("jobs", "4000"));
    int rounds = Integer.parseInt(opts.getOrDefault("rounds", "2"));
    long scale = Long.parseLong(opts.getOrDefault("scale", "60000"));
    int warmup = Integer.parseInt(opts.getOrDefault("warmup", "1000"));
    System.out.println("# GPU claim latency on PostgreSQL: " + collectors + " collectors on " + pools + " pools, "
        + devices + " devices each, jobs of 1/2/4/" + devices + " GPUs, estimates 5-40 min run at 1/" + scale
        + ", " + jobs + " jobs per run");
    if (warmup > 0) {
      run(db, collectors, pools, devices, warmup, scale);
      System.out.println("warm-up run of " + warmup + " jobs done (not reported)");
    }
    for (int round = 1; round <= rounds; round++) {
      Measured m = run(db, collectors, pools, devices, jobs, scale);
      Arrays.sort(m.withJob());
      Arrays.sort(m.empty());
      System.out.printf(Locale.ROOT, "round %d | claims with a job: %6d, p50 %6.2f ms, p90 %6.2f ms, p99 %6.2f ms,"
          + " max %7.2f ms | empty claims: %6d, p50 %6.2f ms, p99 %6.2f ms, %d timed out | %6.0f jobs/s |"
          + " device utilization %4.1f %% | load %.1f%n", round, m.withJob().length, q(m.withJob(), 0.5),
          q(m.withJob(), 0.9), q(m.withJob(), 0.99), q(m.withJob(), 1), m.empty().length, q(m.empty(), 0.5),
          q(m.empty(), 0.99), m.timeouts(), m.jobs() / m.seconds(), 100 * m.utilization(), Load.now());
    }
  }

  /** The {@code p}-quantile of sorted values (nearest rank), 0 for none. */
  private static double q(double[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static String tag(int pool) {
    return "gpu" + pool;
  }

  private static Measured run(BenchDatabase db, int collectors, int pools, int devices, int jobs, long scale) {
    String schema = BenchDatabase.freshSchema("bench_gpu");
    int[] widths = {1, 2, 4, devices};
    try {
      QueueSettings settings = QueueSettings.withoutJobs();
      try (HikariDataSource setup = db.pool("gpu-setup", 2)) {
        JobQueue queue = JobQueue.of(PostgresQueueStore.create(setup, schema), settings);
        for (int c = 0; c < collectors; c++) {
          RegisterResult r = queue.store().registerCollector("c" + c, tag(c % pools), true, Devices.count(devices));
          if (r.status() != RegisterResult.Status.REGISTERED) {
            throw new IllegalStateException("could not register c" + c + ": " + r.status());
          }
        }
        RequestId id = queue.submit(NewRequest.master("gpu-" + schema, null)).request().id();
        List<JobSpec> specs = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
          specs.add(JobSpec.required("g" + i, tag(i % pools)).withGpus(widths[(i / pools) % widths.length],
              Duration.ofMinutes(5L * (1 + (i / pools / widths.length) % 8))));
        }
        StartResult started = queue.store().startRequest(StartCommand.builder().requestId(id).jobs(specs)
            .maxInProgress(Integer.MAX_VALUE).build());
        if (started.status() != StartResult.Status.STARTED || started.jobs().size() != jobs) {
          throw new IllegalStateException("could not enqueue " + jobs + " jobs: " + started.status());
        }
        db.closeAndAwaitGone(setup);
      }
      HikariDataSource pool = db.pool("gpu", collectors + 2);
      try {
        JobQueue queue = JobQueue.of(PostgresQueueStore.attach(pool, PostgresQueueOptions.inSchema(schema)),
            settings);
        AtomicInteger done = new AtomicInteger();
        AtomicLong deviceNanos = new AtomicLong();
        AtomicInteger timeouts = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<double[]> withJob = new ArrayList<>();
        List<double[]> empty = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < collectors; c++) {
          String name = "c" + c;
          double[] got = new double[jobs];
          double[] none = new double[jobs * 64];
          int[] counts = new int[2];
          Thread t = new Thread(() -> {
            try {
              start.await();
              collect(queue, name, devices, jobs, scale, done, deviceNanos, timeouts, failure, got, none, counts);
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            } finally {
              synchronized (withJob) {
                withJob.add(Arrays.copyOf(got, counts[0]));
                empty.add(Arrays.copyOf(none, counts[1]));
              }
            }
          }, "collector-" + c);
          t.start();
          threads.add(t);
        }
        Thread site = StoreRun.startSite(queue, start, failure);
        long t0 = System.nanoTime();
        start.countDown();
        for (Thread t : threads) {
          StoreRun.join(t);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        site.interrupt();
        StoreRun.join(site);
        if (failure.get() != null) {
          throw new IllegalStateException("GPU claim run failed: " + failure.get(), failure.get());
        }
        if (done.get() != jobs) {
          throw new IllegalStateException("completed " + done.get() + " of " + jobs + " jobs");
        }
        return new Measured(concat(withJob), concat(empty), timeouts.get(), jobs, seconds,
            deviceNanos.get() / 1e9 / ((double) collectors * devices * seconds));
      } finally {
        db.closeAndAwaitGone(pool);
      }
    } finally {
      db.dropSchema(schema);
    }
  }

  /** One collector's loop until every job of the run is done. */
  private static void collect(JobQueue queue, String name, int devices, int jobs, long scale, AtomicInteger done,
      AtomicLong deviceNanos, AtomicInteger timeouts, AtomicReference<Throwable> failure, double[] got,
      double[] none, int[] counts) throws InterruptedException {
    List<Lease> running = new ArrayList<>();
    List<long[]> ends = new ArrayList<>(); // {end nanos, gpus, start nanos}
    int free = devices;
    while (done.get() < jobs && failure.get() == null) {
      long now = System.nanoTime();
      for (int i = running.size() - 1; i >= 0; i--) {
        if (ends.get(i)[0] <= now) {
          complete(queue, running.get(i));
          free += (int) ends.get(i)[1];
          deviceNanos.addAndGet(ends.get(i)[1] * (now - ends.get(i)[2]));
          done.incrementAndGet();
          running.remove(i);
          ends.remove(i);
        }
      }
      boolean claimed = false;
      if (free > 0) {
        long c0 = System.nanoTime();
        ClaimResult result;
        try {
          result = queue.claim(name, 1);
        } catch (QueueStoreUnavailableException e) {
          // A claim that waited longer than the lock timeout for its pool's lock; a collector retries it on
          // its next iteration, as here. Its wait counts among the empty claims and as a timeout.
          timeouts.incrementAndGet();
          if (counts[1] < none.length) {
            none[counts[1]++] = (System.nanoTime() - c0) / 1e6;
          }
          continue;
        }
        long c1 = System.nanoTime();
        if (result.status() != ClaimResult.Status.OK) {
          throw new IllegalStateException("claim by " + name + ": " + result.status());
        }
        double ms = (c1 - c0) / 1e6;
        for (Claim claim : result.claims()) {
          int gpus = claim.job().spec().gpus();
          long runNanos = claim.job().spec().estimate().toNanos() / scale;
          running.add(claim.lease());
          ends.add(new long[] {c1 + runNanos, gpus, c1});
          free -= gpus;
          claimed = true;
        }
        if (claimed) {
          got[Math.min(counts[0]++, got.length - 1)] = ms;
        } else if (counts[1] < none.length) {
          none[counts[1]++] = ms;
        }
      }
      if (!claimed) {
        long next = Long.MAX_VALUE;
        for (long[] e : ends) {
          next = Math.min(next, e[0]);
        }
        long waitNanos = Math.min(5_000_000L, Math.max(0, next - System.nanoTime()));
        Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
      }
    }
    if (!running.isEmpty() && failure.get() == null) {
      throw new IllegalStateException("the run ended with " + running + " still running");
    }
  }

  /** Completes a lease, retrying a timed-out completion (a fenced retry reports an applied one as stale). */
  private static void complete(JobQueue queue, Lease lease) {
    for (int attempt = 1; ; attempt++) {
      try {
        LeaseResult done = queue.complete(lease);
        if (done.ok() || (done.status() == LeaseStatus.STALE_LEASE && attempt > 1 && done.job().isPresent()
            && done.job().get().state() == JobState.SUCCEEDED)) {
          return;
        }
        throw new IllegalStateException("could not complete " + lease + ": " + done.status());
      } catch (QueueStoreUnavailableException e) {
        if (attempt >= 10) {
          throw e;
        }
      }
    }
  }

  private static double[] concat(List<double[]> parts) {
    int n = 0;
    for (double[] p : parts) {
      n += p.length;
    }
    double[] all = new double[n];
    int at = 0;
    for (double[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    return all;
  }
}

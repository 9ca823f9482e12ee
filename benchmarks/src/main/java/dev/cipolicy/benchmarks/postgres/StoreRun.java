package dev.cipolicy.benchmarks.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.cipolicy.postgres.PostgresQueueOptions;
import dev.cipolicy.postgres.PostgresQueueStore;
import dev.cipolicy.postgres.PostgresTimeouts;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CompleteAndClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Drains {@code PostgresQueueStore}: one request of lead + N queued jobs is started (outside the measurement); then
 * each collector thread, a registered collector of its own, claims ({@code limit} 1 in per-job mode, the
 * batch size in batched mode) and completes each claimed job (or, in batch-complete mode, all of a claim with
 * one {@code completeAll}; in complete-and-claim mode, each completion claims the next job in the same call),
 * until a claim comes back empty, while a site thread calls {@link JobQueue#tick()}
 * once a second. The first {@code lead} completions are not
 * measured (see {@link Window}).
 */
final class StoreRun {
  private static final String TAG = "bench";
  /** How often the site ticks during a drain. */
  static final long SITE_TICK_MILLIS = 1_000;

  private StoreRun() {
  }

  static RunResult run(BenchDatabase db, String system, int threads, int limit, int lead, int jobs, int round) {
    return run(db, system, threads, limit, false, lead, jobs, round);
  }

  /**
   * One run; with {@code completeBatch} each collector completes the jobs of a claim with one
   * {@link JobQueue#completeAll} call instead of one {@link JobQueue#complete} per job.
   */
  static RunResult run(BenchDatabase db, String system, int threads, int limit, boolean completeBatch, int lead,
      int jobs, int round) {
    return run(db, system, threads, limit, completeBatch, PostgresTimeouts.defaults(), lead, jobs, round);
  }

  /**
   * For attribution runs only: the SQL of the system property {@value #ALTER_PROPERTY} (statements separated by
   * {@code ;}, {@code {schema}} standing for the run's schema), run on the store's schema after its jobs are
   * enqueued and before it is measured, such as dropping a constraint to see what it costs. Never set in the
   * figures of the store itself.
   */
  static final String ALTER_PROPERTY = "cipolicy.bench.alter";

  private static void alterForAttribution(BenchDatabase db, String schema) {
    String alter = System.getProperty(ALTER_PROPERTY, "");
    for (String statement : alter.split(";")) {
      if (!statement.isBlank()) {
        db.exec(statement.replace("{schema}", schema));
      }
    }
  }

  /**
   * One run of collectors that run one job at a time through {@link JobQueue#completeAndClaim}: one claim
   * to start, then each completion claims the next job in the same store call (one commit per job).
   */
  static RunResult runCompleteAndClaim(BenchDatabase db, String system, int threads, PostgresTimeouts timeouts,
      int lead, int jobs, int round) {
    return run(db, system, threads, 1, false, true, timeouts, lead, jobs, round);
  }

  /** One run with the given time limits on every store operation (the defaults unless a mode says otherwise). */
  static RunResult run(BenchDatabase db, String system, int threads, int limit, boolean completeBatch,
      PostgresTimeouts timeouts, int lead, int jobs, int round) {
    return run(db, system, threads, limit, completeBatch, false, timeouts, lead, jobs, round);
  }

  private static RunResult run(BenchDatabase db, String system, int threads, int limit, boolean completeBatch,
      boolean andClaim, PostgresTimeouts timeouts, int lead, int jobs, int round) {
    int total = lead + jobs;
    String schema = BenchDatabase.freshSchema("bench_store");
    try {
      QueueSettings settings = QueueSettings.withoutJobs();
      try (HikariDataSource setup = db.pool("setup", 2)) {
        JobQueue queue = JobQueue.of(PostgresQueueStore.create(setup, schema), settings);
        for (int t = 0; t < threads; t++) {
          queue.registerCollector(collector(t), TAG, true);
        }
        RequestId id = queue.submit(NewRequest.master("bench-" + schema, null)).request().id();
        List<JobSpec> specs = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
          specs.add(JobSpec.required("g" + i, TAG));
        }
        StartResult started = queue.store().startRequest(StartCommand.builder().requestId(id).jobs(specs)
            .maxInProgress(Integer.MAX_VALUE).build());
        if (started.status() != StartResult.Status.STARTED || started.jobs().size() != total) {
          throw new IllegalStateException("could not enqueue " + total + " jobs: " + started.status());
        }
        db.closeAndAwaitGone(setup);
      }
      alterForAttribution(db, schema);
      HikariDataSource pool = db.pool("store", threads + 2);
      CountingDataSource counting = new CountingDataSource(pool);
      JobQueue queue = JobQueue.of(PostgresQueueStore.attach(counting, PostgresQueueOptions.inSchema(schema)
          .withTimeouts(timeouts)), settings);
      BenchDatabase.ServerStats serverBefore = db.stats(schema);
      double loadBefore = Load.now();
      Window window = new Window(lead, total, counting);
      @Nullable Throwable failure = drain(threads, "collector", window, t -> {
        String name = collector(t);
        if (andClaim) {
          List<Claim> next = queue.claim(name, 1).claims();
          while (!next.isEmpty()) {
            CompleteAndClaimResult done = queue.completeAndClaim(next.get(0).lease(), 1);
            if (done.completion().status() != LeaseStatus.OK) {
              throw new IllegalStateException("complete of " + next.get(0).lease() + ": "
                  + done.completion().status());
            }
            window.completed(1);
            next = done.claims();
          }
          return;
        }
        while (true) {
          ClaimResult claimed = queue.claim(name, limit);
          if (claimed.status() != ClaimResult.Status.OK) {
            throw new IllegalStateException("claim by " + name + ": " + claimed.status());
          }
          if (claimed.claims().isEmpty()) {
            return;
          }
          if (completeBatch) {
            List<Lease> leases = new ArrayList<>(claimed.claims().size());
            for (Claim claim : claimed.claims()) {
              leases.add(claim.lease());
            }
            List<LeaseResult> done = queue.completeAll(leases);
            for (int i = 0; i < done.size(); i++) {
              if (done.get(i).status() != LeaseStatus.OK) {
                throw new IllegalStateException("complete of " + leases.get(i) + ": " + done.get(i).status());
              }
            }
            window.completed(done.size());
            continue;
          }
          for (Claim claim : claimed.claims()) {
            LeaseResult done = queue.complete(claim.lease());
            if (done.status() != LeaseStatus.OK) {
              throw new IllegalStateException("complete of " + claim.lease() + ": " + done.status());
            }
            window.completed(1);
          }
        }
      }, queue::tick);
      double loadAfter = Load.now();
      db.closeAndAwaitGone(pool);
      BenchDatabase.ServerStats server = db.stats(schema).minus(serverBefore);
      if (failure != null) {
        throw new IllegalStateException(system + " failed: " + failure, failure);
      }
      long succeeded = db.queryLong("SELECT count(*) FROM " + schema + ".queue_jobs WHERE state = 'SUCCEEDED'");
      long leases = db.queryLong("SELECT count(*) FROM " + schema + ".queue_leases");
      if (window.count() != total || succeeded != total || leases != 0) {
        throw new IllegalStateException(system + ": " + window.count() + " completions, " + succeeded
            + " succeeded jobs and " + leases + " leases left, expected " + total + ", " + total + " and 0");
      }
      return new RunResult(system, threads, round, window.jobs(), window.seconds(), total, window.client(), server, loadBefore,
          loadAfter);
    } finally {
      db.dropSchema(schema);
    }
  }

  private static String collector(int t) {
    return "c" + t;
  }


  /** One collector thread of a drain: claims and completes until nothing is left. */
  @FunctionalInterface
  interface DrainWorker {
    void run(int index) throws Exception;
  }

  /** One step of a drain's site, run every {@link #SITE_TICK_MILLIS}. */
  @FunctionalInterface
  interface SiteStep {
    void run() throws Exception;
  }

  /**
   * Runs a drain: {@code threads} worker threads ({@code <name>-<index>}) and a site thread doing {@code step}
   * every {@link #SITE_TICK_MILLIS}, all released together once {@code window} is open; returns when every
   * worker has ended and the site has stopped, with the first failure of any of them, or null.
   */
  static @Nullable Throwable drain(int threads, String name, Window window, DrainWorker worker, SiteStep step) {
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>(threads);
    for (int t = 0; t < threads; t++) {
      int index = t;
      Thread thread = new Thread(() -> {
        try {
          start.await();
          worker.run(index);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, name + "-" + t);
      thread.start();
      workers.add(thread);
    }
    Thread site = startSite(name + "-site", step, start, failure);
    window.open();
    start.countDown();
    for (Thread thread : workers) {
      join(thread);
    }
    site.interrupt();
    join(site);
    return failure.get();
  }

  /**
   * Starts the site of a run: once {@code start} opens, it ticks the queue every {@link #SITE_TICK_MILLIS}
   * until interrupted, as a real deployment's site does while collectors work (its tick is also where the
   * store vacuums the tables claims and completions churn). A failure is recorded in {@code failure}.
   */
  static Thread startSite(JobQueue queue, CountDownLatch start, AtomicReference<Throwable> failure) {
    return startSite("site", queue::tick, start, failure);
  }

  /** Starts a site thread that runs {@code step} every {@link #SITE_TICK_MILLIS} once {@code start} opens. */
  private static Thread startSite(String name, SiteStep step, CountDownLatch start,
      AtomicReference<Throwable> failure) {
    Thread site = new Thread(() -> {
      try {
        start.await();
        while (!Thread.currentThread().isInterrupted()) {
          step.run();
          Thread.sleep(SITE_TICK_MILLIS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    }, name);
    site.start();
    return site;
  }

  static void join(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

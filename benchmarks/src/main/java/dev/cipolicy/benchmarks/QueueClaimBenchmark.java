package dev.cipolicy.benchmarks;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of the in-memory queue (above 1 M claim+complete per second on one core): one
 * operation is a collector claiming one job through {@link JobQueue#claim(String)} and completing it
 * through {@link JobQueue#complete}, with 1, 4 and 16 collector threads (one collector each, same tag) on
 * one {@link InMemoryQueueStore}. The store is fresh for each iteration and holds {@value #PREFILL}
 * queued jobs (requests of {@value #BATCH} jobs, created in the iteration's setup, outside the
 * measurement); should the collectors drain it, it is refilled a request at a time inside the
 * measurement.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx6g"})
public class QueueClaimBenchmark {
  private static final int BATCH = 10_000;
  private static final int PREFILL = 3_000_000;
  private static final List<JobSpec> SPECS = specs();

  private static List<JobSpec> specs() {
    List<JobSpec> specs = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      specs.add(JobSpec.required("g" + i, "x86-64"));
    }
    return List.copyOf(specs);
  }

  /** The store and engine shared by all collector threads, fresh for each iteration. */
  @State(Scope.Benchmark)
  public static class Shared {
    final Clock clock = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);
    final AtomicInteger collectors = new AtomicInteger();
    final AtomicLong batches = new AtomicLong();
    JobQueue queue = JobQueue.inMemory(clock, QueueSettings.withoutJobs());

    /** Creates a store holding {@value #PREFILL} queued jobs. */
    @Setup(Level.Iteration)
    public void setUp() {
      queue = JobQueue.inMemory(clock, QueueSettings.withoutJobs());
      for (int i = 0; i < PREFILL / BATCH; i++) {
        refill();
      }
    }

    String register() {
      String name = "collector-" + collectors.incrementAndGet();
      queue.registerCollector(name, "x86-64", true);
      return name;
    }

    /** Starts one more request with {@value #BATCH} queued jobs. */
    void refill() {
      RequestId id = queue.submit(NewRequest.master("m" + batches.incrementAndGet(), null)).request().id();
      queue.store().startRequest(StartCommand.builder().requestId(id).jobs(SPECS).maxInProgress(Integer.MAX_VALUE)
          .build());
    }
  }

  /** One collector, one per thread. */
  @State(Scope.Thread)
  public static class Collector {
    String name = "";

    /**
     * Registers this thread's collector in the iteration's store.
     *
     * @param shared the store
     */
    @Setup(Level.Iteration)
    public void setUp(Shared shared) {
      name = shared.register();
    }
  }

  private static LeaseResult claimAndComplete(Shared shared, Collector collector) {
    List<Claim> claims = shared.queue.claim(collector.name).claims();
    while (claims.isEmpty()) {
      shared.refill();
      claims = shared.queue.claim(collector.name).claims();
    }
    return shared.queue.complete(claims.get(0).lease());
  }

  /**
   * One collector thread.
   *
   * @param shared the store
   * @param collector this thread's collector
   * @return the completion result
   */
  @Benchmark
  @Threads(1)
  public LeaseResult oneThread(Shared shared, Collector collector) {
    return claimAndComplete(shared, collector);
  }

  /**
   * Four collector threads.
   *
   * @param shared the store
   * @param collector this thread's collector
   * @return the completion result
   */
  @Benchmark
  @Threads(4)
  public LeaseResult fourThreads(Shared shared, Collector collector) {
    return claimAndComplete(shared, collector);
  }

  /**
   * Sixteen collector threads.
   *
   * @param shared the store
   * @param collector this thread's collector
   * @return the completion result
   */
  @Benchmark
  @Threads(16)
  public LeaseResult sixteenThreads(Shared shared, Collector collector) {
    return claimAndComplete(shared, collector);
  }
}

package dev.cipolicy.benchmarks;

import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of a claim with GPU budgets on, against the queue length (it should stay O(log n)): an 8-GPU
 * host of a pool of four such hosts (two NVLink groups each), three of them busy with 8-GPU jobs, claims one
 * job from a queue of {@code queued} jobs and completes it; one operation is that claim and completion on
 * one {@link InMemoryQueueStore}. The queue is refilled inside the measurement when it runs low.
 *
 * <p>{@code head}: with {@code free} the claiming host is idle and the queue holds jobs needing 1, 2, 4 or 8
 * GPUs with estimates of 5 to 40 minutes, so the oldest job fits at once (no reservation). With
 * {@code reserved} the claiming host also runs a 1-GPU job estimated at 20 minutes, the oldest queued job
 * needs 8 GPUs (estimated at an hour) and fits on no host's free devices, and the rest of the queue needs 1,
 * 2 or 4 GPUs with estimates of 5, 10 or 15 minutes: every claim reserves the claiming host for the head (it
 * frees 8 devices soonest) and backfills a job that ends before the reservation is due.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx6g"})
@State(Scope.Benchmark)
public class GpuClaimBenchmark {
  private static final int BATCH = 1_000;
  private static final int[] GPUS = {1, 2, 4, 8};
  private static final ClaimCommand CLAIM = ClaimCommand.builder().collector("h0").leaseDuration(Duration.ofHours(2))
      .build();

  /** How many GPU jobs are queued. */
  @Param({"1000", "100000", "1000000"})
  public int queued;

  /** Whether the head of the pool fits at once ({@code free}) or waits on a reservation ({@code reserved}). */
  @Param({"free", "reserved"})
  public String head;

  private final Clock clock = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);
  private InMemoryQueueStore store = new InMemoryQueueStore(clock);
  private long batches;
  private long waiting;

  /** Creates the pool, keeps three hosts busy and queues the jobs. */
  @Setup(Level.Iteration)
  public void setUp() {
    store = new InMemoryQueueStore(clock);
    batches = 0;
    waiting = 0;
    for (int h = 0; h < 4; h++) {
      store.registerCollector("h" + h, "b200", true, Devices.grouped(List.of(List.of(0, 1, 2, 3),
          List.of(4, 5, 6, 7))));
    }
    RequestId busy = store.submit(NewRequest.master("busy", null)).request().id();
    List<JobSpec> holders = new ArrayList<>();
    for (int h = 1; h < 4; h++) {
      holders.add(JobSpec.required("hold" + h, "b200").withGpus(8, Duration.ofMinutes(30L * h)));
    }
    boolean reserved = reserved();
    if (reserved) {
      holders.add(JobSpec.required("hold0", "b200").withGpus(1, Duration.ofMinutes(20)));
    }
    store.startRequest(StartCommand.builder().requestId(busy).jobs(holders).maxInProgress(Integer.MAX_VALUE).build());
    for (int h = 1; h < 4; h++) {
      store.claim(ClaimCommand.builder().collector("h" + h).leaseDuration(Duration.ofHours(2)).build());
    }
    if (reserved) {
      List<Claim> held = store.claim(CLAIM).claims();
      if (held.size() != 1 || held.get(0).job().spec().gpus() != 1) {
        throw new IllegalStateException("h0 should hold the 1-GPU job; got " + held);
      }
      RequestId wide = store.submit(NewRequest.master("wide", null)).request().id();
      store.startRequest(StartCommand.builder().requestId(wide).jobs(List.of(JobSpec.required("wide", "b200")
          .withGpus(8, Duration.ofHours(1)))).maxInProgress(Integer.MAX_VALUE).build());
    }
    while (waiting < queued) {
      refill();
    }
    if (reserved) {
      // Every claim must be a backfill around the head's reservation, never the head itself.
      List<Claim> trial = store.claim(CLAIM).claims();
      if (trial.size() != 1 || trial.get(0).job().spec().gpus() == 8) {
        throw new IllegalStateException("expected a backfilled job next to the reservation; got " + trial);
      }
      store.complete(LeaseRef.of(trial.get(0).lease()));
      waiting--;
    }
  }

  private boolean reserved() {
    return head.equals("reserved");
  }

  private void refill() {
    RequestId id = store.submit(NewRequest.master("m" + ++batches, null)).request().id();
    List<JobSpec> specs = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      specs.add(reserved()
          ? JobSpec.required("g" + i, "b200").withGpus(GPUS[i % 3], Duration.ofMinutes(5L * (1 + i % 3)))
          : JobSpec.required("g" + i, "b200").withGpus(GPUS[i % GPUS.length], Duration.ofMinutes(5L * (1 + i % 8))));
    }
    store.startRequest(StartCommand.builder().requestId(id).jobs(specs).maxInProgress(Integer.MAX_VALUE).build());
    waiting += BATCH;
  }

  /**
   * Host h0 claims one GPU job and completes it (with {@code reserved}, a backfill next to the head's
   * reservation).
   *
   * @return the completion result
   */
  @Benchmark
  public LeaseResult claimAndComplete() {
    List<Claim> claims = store.claim(CLAIM).claims();
    while (claims.isEmpty()) {
      refill();
      claims = store.claim(CLAIM).claims();
    }
    waiting--;
    if (waiting < queued / 2) {
      refill();
    }
    return store.complete(LeaseRef.of(claims.get(0).lease()));
  }
}

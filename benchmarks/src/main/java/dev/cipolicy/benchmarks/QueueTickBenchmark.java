package dev.cipolicy.benchmarks;

import dev.cipolicy.queue.CollectorTarget;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueOrder;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of a site tick with N queued requests (it should grow no worse than n log n). The queue
 * holds N ready requests: a chain of master commits (each the parent of the next) and try requests on
 * random masters, a tenth of them releases; nothing is in progress. One {@code tick} operation is a site
 * tick that reads the open requests, orders them and starts the head with its job, then (to restore the
 * state) a cancellation of that request and one new submission, so N stays constant. {@code order} is the
 * pure {@link QueueOrder} over the same N requests; {@code readTags} a control that only reads them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx4g"})
public class QueueTickBenchmark {

  /** The number of queued requests; the steps between 1,000 and 100,000 show the growth curve. */
  @Param({"10", "1000", "10000", "30000", "100000"})
  public int queued;

  private final Clock clock = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);
  private final QueueSettings settings = QueueSettings.builder().addBenchmarkGroups("compile-time")
      .addCollectorTargets(CollectorTarget.required("x86-64")).build();
  private JobQueue queue = JobQueue.inMemory(clock, settings);
  private List<Request> snapshot = List.of();
  private long next;

  /** Fills the queue with N ready requests from a fixed seed. */
  @Setup
  public void setUp() {
    queue = JobQueue.inMemory(clock, settings);
    Random random = new Random(13);
    int masters = 0;
    for (int i = 0; i < queued; i++) {
      int kind = random.nextInt(10);
      if (kind == 0) {
        queue.submit(NewRequest.release("v" + i));
      } else if (kind < 6 || masters == 0) {
        queue.submit(NewRequest.master("m" + masters, masters == 0 ? null : "m" + (masters - 1))
            .withPr(pr(i)));
        masters++;
      } else {
        queue.submit(NewRequest.tryWithArtifacts(pr(i), "t" + i,
            "m" + random.nextInt(masters)));
      }
    }
    snapshot = queue.store().openRequests();
    if (snapshot.size() < queued * 99 / 100) {
      throw new IllegalStateException(snapshot.size() + " open requests; expected about " + queued);
    }
    next = 0;
  }

  /** A PR number unique per request and scattered over 1 to 1,000,003 (7919 is coprime to the prime). */
  private static long pr(int i) {
    return 1 + (i * 7919L) % 1_000_003L;
  }

  /**
   * A site tick that orders the N requests and starts the head, then a cancellation of the head and one
   * submission.
   *
   * @return the tick
   */
  @Benchmark
  public TickResult tick() {
    TickResult tick = queue.tick();
    if (tick.started().size() != 1) {
      throw new IllegalStateException("the tick should start exactly one request: " + tick.explanation().sentence());
    }
    queue.cancel(tick.started().get(0).request().orElseThrow().id(), "benchmark");
    queue.submit(NewRequest.master("n" + next, null).withPr(2_000_000 + next++));
    return tick;
  }

  /**
   * The pure queue order over the N requests.
   *
   * @return the order
   */
  @Benchmark
  public QueueOrder order() {
    return QueueOrder.of(snapshot);
  }

  /**
   * A control without any ordering: reads the tag hash of each of the N requests, the first load
   * {@code order} makes per request. Its cost per request shows what the memory hierarchy alone adds
   * as N grows (docs/performance.md).
   *
   * @return the sum of the hashes
   */
  @Benchmark
  public long readTags() {
    long sum = 0;
    for (Request r : snapshot) {
      sum += r.tag().map(String::hashCode).orElse(0);
    }
    return sum;
  }
}

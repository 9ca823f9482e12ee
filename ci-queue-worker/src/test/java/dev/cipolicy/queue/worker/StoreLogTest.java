package dev.cipolicy.queue.worker;

import static dev.cipolicy.queue.worker.Queues.await;
import static dev.cipolicy.queue.worker.Queues.job;
import static dev.cipolicy.queue.worker.Queues.queue;
import static dev.cipolicy.queue.worker.Queues.started;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobLogView;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.LogWindow;
import dev.cipolicy.queue.model.RequestId;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A collector sends its jobs' output to the store's log while they run, bounded to the store's window. */
@Timeout(60)
class StoreLogTest {

  private static final String TAG = "x86-64";

  /** What {@code seq 1 n} prints. */
  private static byte[] seq(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      b.append(i).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aProcessPrintingMoreThanTheBoundLeavesHeadTailAndTheTotalInTheStore() {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("chatty", TAG));
    RequestId request = started(queue, "aaa111");
    byte[] expected = seq(100_000); // 588,895 bytes, far more than head and tail
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c1").tag(TAG)
        .claimInterval(Duration.ofMillis(20)).logFlushInterval(Duration.ofMillis(5))
        .runner(ProcessJobRunner.of("sh", "-c", "seq 1 100000")).start()) {
      await("the job completes", () -> job(queue, request, "chatty").state() == JobState.SUCCEEDED);
      assertThat(collector.meterRegistry()).isNotNull();
    }
    Job done = job(queue, request, "chatty");
    JobLogView log = queue.log(done.id()).orElseThrow();
    assertThat(log.finished()).isTrue();
    assertThat(log.totalBytes()).isEqualTo(expected.length);
    assertThat(log.head()).isEqualTo(Arrays.copyOfRange(expected, 0, LogWindow.STORE_HEAD_BYTES));
    assertThat(log.tail()).isEqualTo(Arrays.copyOfRange(expected, expected.length - LogWindow.STORE_TAIL_BYTES,
        expected.length));
    assertThat(log.droppedBytes()).isEqualTo(expected.length - LogWindow.STORE_HEAD_BYTES
        - LogWindow.STORE_TAIL_BYTES);
  }

  @Test
  void theOutputIsReadableWhileTheJobRuns() throws Exception {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("slow", TAG));
    RequestId request = started(queue, "bbb222");
    CountDownLatch release = new CountDownLatch(1);
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c1").tag(TAG)
        .claimInterval(Duration.ofMillis(20)).logFlushInterval(Duration.ofMillis(1))
        .runner(ctx -> {
          ctx.log().line("starting");
          Thread.sleep(5);
          ctx.log().line("step 1 done");
          assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
          return JobOutcome.success();
        }).start()) {
      await("the job runs", () -> job(queue, request, "slow").state() == JobState.LEASED);
      // the store records the lease before the runtime lists it as running: wait for both
      await("the runtime runs it", () -> collector.runningLeases().size() == 1);
      Job running = job(queue, request, "slow");
      await("its output is in the store", () -> queue.log(running.id()).orElseThrow().text()
          .equals("starting\nstep 1 done\n"));
      assertThat(queue.log(running.id()).orElseThrow().finished()).isFalse();
      release.countDown();
      await("the job completes", () -> job(queue, request, "slow").state() == JobState.SUCCEEDED);
    }
    assertThat(queue.log(job(queue, request, "slow").id()).orElseThrow().finished()).isTrue();
  }
}

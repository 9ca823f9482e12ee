package dev.cipolicy.queue.worker;

import static dev.cipolicy.queue.worker.Queues.await;
import static dev.cipolicy.queue.worker.Queues.job;
import static dev.cipolicy.queue.worker.Queues.queue;
import static dev.cipolicy.queue.worker.Queues.started;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.RequestId;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** ProcessJobRunner with real processes (POSIX {@code sh}). */
@Timeout(60)
class ProcessJobRunnerTest {

  private static final String TAG = "gpu";
  private static final Pattern PIDS = Pattern.compile("self=(\\d+) child=(\\d+)");

  @Test
  void setsCudaVisibleDevicesFromTheLease() {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("two-gpus", TAG).withGpus(2, Duration.ofSeconds(1)), JobSpec.required("cpu", TAG));
    RequestId request = started(queue, "fff666");
    ProcessJobRunner runner = ProcessJobRunner.builder(ctx -> List.of("sh", "-c",
        "echo \"devices=[$CUDA_VISIBLE_DEVICES]\"")).resultFromLog(true).build();
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("g1").tag(TAG).devices(Devices.count(4))
        .concurrency(2).claimInterval(Duration.ofMillis(20)).runner(runner).start()) {
      await("both jobs succeed", () -> Queues.jobs(queue, request).stream()
          .allMatch(j -> j.state() == JobState.SUCCEEDED));
      await("the collector is done with them", () -> collector.runningLeases().isEmpty());
    }
    assertThat(queue.result(job(queue, request, "two-gpus").id()).orElseThrow().payload().text())
        .isEqualTo("devices=[0,1]\n");
    assertThat(queue.result(job(queue, request, "cpu").id()).orElseThrow().payload().text())
        .isEqualTo("devices=[]\n");
    assertThat(ProcessJobRunner.visibleDevices(List.of(3, 5, 7))).isEqualTo("3,5,7");
  }

  @Test
  void killsTheWholeProcessTreeWhenTheJobIsCancelled() throws Exception {
    SimpleJobContext ctx = context();
    ProcessJobRunner runner = ProcessJobRunner.of("sh", "-c", "sleep 60 & echo \"self=$$ child=$!\"; sleep 60");
    CompletableFuture<JobOutcome> run = CompletableFuture.supplyAsync(() -> call(runner, ctx));
    List<ProcessHandle> tree = treeOf(ctx);
    assertThat(tree).as("sh, its background sleep and its foreground sleep").hasSizeGreaterThanOrEqualTo(3)
        .allMatch(ProcessHandle::isAlive);

    ctx.stop(StopReason.REQUEST_CANCELLED);

    JobOutcome outcome = run.get(20, TimeUnit.SECONDS);
    assertThat(outcome.succeeded()).isFalse();
    assertGone(tree);
    assertThat(ctx.log().text()).contains("[stopped: REQUEST_CANCELLED]");
  }

  @Test
  void killsTheTreeWhenItsThreadIsInterrupted() throws Exception {
    SimpleJobContext ctx = context();
    ProcessJobRunner runner = ProcessJobRunner.of("sh", "-c", "sleep 60 & echo \"self=$$ child=$!\"; sleep 60");
    List<Object> result = new ArrayList<>();
    Thread t = new Thread(() -> result.add(callCatching(runner, ctx)));
    t.start();
    List<ProcessHandle> tree = treeOf(ctx);
    t.interrupt();
    t.join(20_000);
    assertThat(t.isAlive()).isFalse();
    assertThat(result).singleElement().isInstanceOf(InterruptedException.class);
    assertGone(tree);
  }

  @Test
  void timesOutKillingTheTree() throws Exception {
    SimpleJobContext ctx = context();
    ProcessJobRunner runner = ProcessJobRunner.builder(c -> List.of("sh", "-c",
        "sleep 60 & echo \"self=$$ child=$!\"; sleep 60")).timeout(Duration.ofMillis(500)).build();
    CompletableFuture<JobOutcome> run = CompletableFuture.supplyAsync(() -> call(runner, ctx));
    List<ProcessHandle> tree = treeOf(ctx);
    JobOutcome outcome = run.get(20, TimeUnit.SECONDS);
    assertThat(outcome.failure()).hasValueSatisfying(f -> {
      assertThat(f.kind()).isEqualTo(Failure.Kind.TRANSIENT);
      assertThat(f.detail()).isEqualTo("timed out after PT0.5S: sh");
    });
    assertGone(tree);
  }

  @Test
  void boundsTheLogAndMarksTheTruncation() throws Exception {
    SimpleJobContext ctx = context(new JobLog(1024));
    ProcessJobRunner runner = ProcessJobRunner.of("sh", "-c",
        "echo first-line; seq 0 3999 | sed s/^/line-/; echo last-line");
    JobOutcome outcome = runner.run(ctx);
    assertThat(outcome.succeeded()).isTrue();
    JobLog log = ctx.log();
    assertThat(log.truncated()).isTrue();
    assertThat(log.totalBytes()).isGreaterThan(20_000);
    String text = log.text();
    assertThat(text).startsWith("first-line\n").endsWith("line-3999\nlast-line\n")
        .containsPattern("\\[\\.\\.\\. \\d+ bytes truncated \\.\\.\\.\\]");
    assertThat(text.length()).isLessThan(1024 + 64);
  }

  @Test
  void mapsExitCodesToFailures() throws Exception {
    ProcessJobRunner runner = ProcessJobRunner.builder(ctx -> List.of("sh", "-c",
        "echo working; echo \"boom $CODE\" >&2; exit $CODE")).permanentExitCodes(3)
        .environment("CODE", "3").build();
    Optional<Failure> permanent = runner.run(context()).failure();
    assertThat(permanent).hasValueSatisfying(f -> {
      assertThat(f.kind()).isEqualTo(Failure.Kind.PERMANENT);
      assertThat(f.detail()).isEqualTo("sh exited with code 3; last output: boom 3");
    });
    ProcessJobRunner four = ProcessJobRunner.builder(ctx -> List.of("sh", "-c", "exit 4"))
        .permanentExitCodes(3).build();
    assertThat(four.run(context()).failure()).hasValueSatisfying(f -> {
      assertThat(f.kind()).isEqualTo(Failure.Kind.TRANSIENT);
      assertThat(f.detail()).isEqualTo("sh exited with code 4");
    });
    assertThat(ProcessJobRunner.of("/no/such/program").run(context()).failure())
        .hasValueSatisfying(f -> assertThat(f.detail()).startsWith("cannot start /no/such/program"));
  }

  // ---------------------------------------------------------------------------------------------- helpers

  private static Object callCatching(ProcessJobRunner runner, SimpleJobContext ctx) {
    try {
      return runner.run(ctx);
    } catch (InterruptedException e) {
      return e;
    }
  }

  private static JobOutcome call(ProcessJobRunner runner, SimpleJobContext ctx) {
    try {
      return runner.run(ctx);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static SimpleJobContext context() {
    return context(JobLog.withDefaultLimit());
  }

  /** A context for a job claimed straight from a queue (no collector). */
  private static SimpleJobContext context(JobLog log) {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofMinutes(5), Duration.ofMinutes(5),
        JobSpec.required("proc", "cpu"));
    started(queue, "abc123");
    queue.registerCollector("direct", "cpu", true);
    Claim claim = queue.claim("direct").claims().get(0);
    return new SimpleJobContext(claim, log);
  }

  /** The shell's pid and its background child's, from the log, and the shell's whole tree. */
  private static List<ProcessHandle> treeOf(SimpleJobContext ctx) {
    await("the shell prints its pids", () -> PIDS.matcher(ctx.log().text()).find());
    Matcher m = PIDS.matcher(ctx.log().text());
    assertThat(m.find()).isTrue();
    ProcessHandle shell = ProcessHandle.of(Long.parseLong(m.group(1))).orElseThrow();
    ProcessHandle child = ProcessHandle.of(Long.parseLong(m.group(2))).orElseThrow();
    await("the foreground sleep starts", () -> shell.descendants().count() >= 2);
    List<ProcessHandle> tree = new ArrayList<>();
    tree.add(shell);
    shell.descendants().forEach(tree::add);
    assertThat(tree).contains(child);
    return tree;
  }

  private static void assertGone(List<ProcessHandle> tree) {
    for (ProcessHandle h : tree) {
      await("process " + h.pid() + " is gone", () -> !h.isAlive());
    }
  }
}

package dev.cipolicy.queue.worker;

import static dev.cipolicy.queue.worker.Queues.await;
import static dev.cipolicy.queue.worker.Queues.count;
import static dev.cipolicy.queue.worker.Queues.job;
import static dev.cipolicy.queue.worker.Queues.queue;
import static dev.cipolicy.queue.worker.Queues.started;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.CollectorStatus;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.RetireResult;
import dev.cipolicy.queue.tck.SettableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The collector runtime with real threads against the in-memory queue. */
@Timeout(60)
class CollectorTest {

  private static final String TAG = "x86-64";

  @Test
  void aJobLongerThanItsLeaseSurvivesByRenewalAndTheCollectorStaysOnline() throws Exception {
    // Lease 600 ms, heartbeat 200 ms (a third), job 2.4 s: four leases long. A heartbeat may come up to 400 ms
    // late on a loaded machine before the lease runs out.
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofMillis(600), Duration.ofMillis(600),
        JobSpec.required("long", TAG));
    RequestId request = started(queue, "aaa111");
    AtomicInteger runs = new AtomicInteger();
    List<CollectorStatus.State> seen = new CopyOnWriteArrayList<>();
    CountDownLatch running = new CountDownLatch(1);
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c1").tag(TAG).claimInterval(Duration.ofMillis(20))
        .runner(ctx -> {
          runs.incrementAndGet();
          running.countDown();
          Thread.sleep(2400);
          return JobOutcome.success(ResultPayload.ofText("done"));
        }).start()) {
      assertThat(collector.heartbeatInterval()).isEqualTo(Duration.ofMillis(200));
      assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
      while (job(queue, request, "long").state() == JobState.LEASED) {
        queue.collectors().forEach(s -> seen.add(s.state()));
        Thread.sleep(50);
      }
      await("the job completes", () -> job(queue, request, "long").state() == JobState.SUCCEEDED);
      Job done = job(queue, request, "long");
      assertThat(done.attempt()).as("claimed once").isEqualTo(1);
      assertThat(done.crashRescues()).as("its lease never expired").isZero();
      assertThat(runs).hasValue(1);
      assertThat(queue.result(done.id()).orElseThrow().payload().text()).isEqualTo("done");
      MeterRegistry meters = collector.meterRegistry();
      assertThat(count(meters, CollectorMeters.LEASE_RENEWALS)).isGreaterThanOrEqualTo(1);
      assertThat(count(meters, CollectorMeters.LEASES_LOST)).isZero();
      assertThat(count(meters, CollectorMeters.JOBS_CLAIMED)).isEqualTo(1);
      assertThat(count(meters, CollectorMeters.CLAIMS, "result", "jobs")).isEqualTo(1);
      await("an empty claim is counted", () -> count(meters, CollectorMeters.CLAIMS, "result", "empty") >= 1);
      Timer timer = meters.find(CollectorMeters.JOB_DURATION).tags("group", "long", "disposition", "completed")
          .timer();
      assertThat(timer).isNotNull();
      assertThat(timer.count()).isEqualTo(1);
      assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(2400);
    }
    assertThat(seen).as("states of the collector while it held the lease").isNotEmpty()
        .containsOnly(CollectorStatus.State.ONLINE);
  }

  @Test
  void closeFinishesWhatEndsWithinTheGraceAndReleasesTheRestThenEveryThreadIsGone() throws Exception {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("short", TAG), JobSpec.required("stuck", TAG));
    RequestId request = started(queue, "bbb222");
    CountDownLatch both = new CountDownLatch(2);
    AtomicInteger interrupted = new AtomicInteger();
    Queues.RecordingThreads threads = new Queues.RecordingThreads();
    List<JobReport> reports = new CopyOnWriteArrayList<>();
    CollectorRuntime collector = CollectorRuntime.builder(queue).name("c2").tag(TAG).concurrency(2)
        .claimInterval(Duration.ofMillis(20)).threadFactory(threads).onJobDone(reports::add)
        .runner(ctx -> {
          both.countDown();
          both.await();
          if (ctx.spec().benchmarkGroup().equals("short")) {
            Thread.sleep(300);
            return JobOutcome.success();
          }
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            interrupted.incrementAndGet();
            throw e;
          }
          return JobOutcome.success();
        }).start();
    assertThat(both.await(20, TimeUnit.SECONDS)).isTrue();

    collector.close(Duration.ofMillis(1500));

    assertThat(threads.alive()).as("threads alive after close").isEmpty();
    assertThat(threads.made).hasSizeGreaterThanOrEqualTo(4);
    assertThat(collector.isClaiming()).isFalse();
    assertThat(job(queue, request, "short").state()).isEqualTo(JobState.SUCCEEDED);
    Job stuck = job(queue, request, "stuck");
    assertThat(stuck.state()).as("released, not failed").isEqualTo(JobState.QUEUED);
    assertThat(stuck.transientRetries()).isZero();
    assertThat(stuck.crashRescues()).isZero();
    assertThat(interrupted).hasValue(1);
    assertThat(collector.runningLeases()).isEmpty();
    assertThat(count(collector.meterRegistry(), CollectorMeters.RELEASES)).isEqualTo(1);
    assertThat(reports).extracting(r -> r.job().spec().benchmarkGroup() + ":" + r.disposition())
        .containsExactlyInAnyOrder("short:COMPLETED", "stuck:RELEASED");
    assertThat(reports).filteredOn(r -> r.disposition() == JobReport.Disposition.RELEASED)
        .singleElement().satisfies(r -> assertThat(r.stopReason()).contains(StopReason.SHUTDOWN));
    // Idempotent.
    collector.close();
  }

  @Test
  void aCancelledRequestStopsItsRunningJobWithinOneHeartbeat() throws Exception {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("bench", TAG));
    RequestId request = started(queue, "ccc333");
    // The heartbeat loop beats only when the test lets it: one permit is one heartbeat round.
    Semaphore beats = new Semaphore(0);
    Sleeper stepped = d -> beats.acquire();
    CountDownLatch running = new CountDownLatch(1);
    Map<String, Object> seen = new ConcurrentHashMap<>();
    CountDownLatch reported = new CountDownLatch(1);
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c3").tag(TAG).sleeper(stepped)
        .wakeups(Wakeups.polling(Sleeper.system())).claimInterval(Duration.ofMillis(20))
        .onJobDone(r -> {
          seen.put("report", r);
          reported.countDown();
        })
        .runner(ctx -> {
          running.countDown();
          boolean stopped;
          try {
            stopped = ctx.awaitStop(Duration.ofSeconds(30));
          } catch (InterruptedException e) {
            stopped = true;
          }
          seen.put("stopped", stopped);
          seen.put("reason", ctx.stopReason().map(Enum::name).orElse("none"));
          return JobOutcome.success();
        }).start()) {
      assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(queue.cancel(request, "PR closed").status().name()).isEqualTo("CANCELLED");
      beats.release();   // exactly one heartbeat round after the cancellation
      assertThat(reported.await(20, TimeUnit.SECONDS)).as("the job stopped after one heartbeat").isTrue();
      assertThat(seen).containsEntry("stopped", true).containsEntry("reason", "REQUEST_CANCELLED");
      JobReport report = (JobReport) seen.get("report");
      assertThat(report.disposition()).isEqualTo(JobReport.Disposition.CANCELLED);
      assertThat(report.reported()).as("nothing reported for a cancelled job").isEmpty();
      assertThat(job(queue, request, "bench").state()).isEqualTo(JobState.CANCELLED);
      assertThat(count(collector.meterRegistry(), CollectorMeters.CANCELLATIONS)).isEqualTo(1);
    }
  }

  @Test
  void aDeadCollectorsJobIsRunByAnotherCollectorAfterOneLease() throws Exception {
    SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
    Duration lease = Duration.ofSeconds(10);
    JobQueue queue = queue(clock, lease, lease, JobSpec.required("bench", TAG));
    RequestId request = started(queue, "ddd444");
    CountDownLatch onA = new CountDownLatch(1);
    CollectorRuntime a = CollectorRuntime.builder(queue).name("a").tag(TAG).claimInterval(Duration.ofMillis(20))
        .runner(ctx -> {
          onA.countDown();
          Thread.sleep(60_000);
          return JobOutcome.success();
        }).start();
    assertThat(onA.await(20, TimeUnit.SECONDS)).isTrue();
    a.abandon();   // a crash: nothing released, no more heartbeats
    assertThat(job(queue, request, "bench").lease().orElseThrow().collector()).isEqualTo("a");

    AtomicInteger onB = new AtomicInteger();
    try (CollectorRuntime b = CollectorRuntime.builder(queue).name("b").tag(TAG).claimInterval(Duration.ofMillis(20))
        .heartbeatInterval(Duration.ofMillis(50)).clock(clock)
        .runner(ctx -> {
          onB.incrementAndGet();
          return JobOutcome.success();
        }).start()) {
      await("b claims and finds nothing while a's lease is live",
          () -> count(b.meterRegistry(), CollectorMeters.CLAIMS, "result", "empty") >= 3);
      assertThat(job(queue, request, "bench").state()).isEqualTo(JobState.LEASED);
      assertThat(onB).hasValue(0);

      clock.advance(lease.plusSeconds(1));   // one lease later: a's lease has expired, a is offline

      await("b runs the job", () -> job(queue, request, "bench").state() == JobState.SUCCEEDED);
      Job done = job(queue, request, "bench");
      assertThat(done.attempt()).isEqualTo(2);
      assertThat(done.crashRescues()).isEqualTo(1);
      assertThat(onB).hasValue(1);
    }
  }

  @Test
  void aJobsOwnTimeoutTakesPrecedenceOverTheCollectors() throws Exception {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("own", TAG).withTimeout(Duration.ofMillis(200)),
        JobSpec.required("longer", TAG).withTimeout(Duration.ofSeconds(30)), JobSpec.required("plain", TAG));
    RequestId request = started(queue, "fff666");
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c6").tag(TAG).concurrency(3)
        .claimInterval(Duration.ofMillis(20)).heartbeatInterval(Duration.ofMillis(50))
        .jobTimeout(Duration.ofMillis(400)).timeoutFailure(Failure.Kind.PERMANENT)
        .runner(ctx -> {
          if (ctx.spec().benchmarkGroup().equals("longer")) {
            // Past the collector's 400 ms, within the job's own 30 s: it runs to the end.
            return ctx.awaitStop(Duration.ofMillis(900)) ? JobOutcome.permanentFailure("stopped") : JobOutcome.success();
          }
          ctx.awaitStop(Duration.ofSeconds(30));
          return JobOutcome.success();
        }).start()) {
      await("every job is terminal", () -> Queues.jobs(queue, request).stream().allMatch(j -> j.state().isTerminal()));
      assertThat(job(queue, request, "own").state()).isEqualTo(JobState.FAILED);
      assertThat(job(queue, request, "own").failure().orElseThrow().toString()).contains("timed out after PT0.2S");
      assertThat(job(queue, request, "plain").state()).isEqualTo(JobState.FAILED);
      assertThat(job(queue, request, "plain").failure().orElseThrow().toString()).contains("timed out after PT0.4S");
      assertThat(job(queue, request, "longer").state()).isEqualTo(JobState.SUCCEEDED);
      assertThat(count(collector.meterRegistry(), CollectorMeters.FAILURES, "kind", "permanent", "cause", "timeout"))
          .isEqualTo(2);
    }
  }

  @Test
  void failuresAreClassifiedAndCounted() throws Exception {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("throws", TAG), JobSpec.required("permanent", TAG), JobSpec.required("classified", TAG),
        JobSpec.required("returns", TAG), JobSpec.required("slow", TAG));
    RequestId request = started(queue, "eee555");
    Instant start = Instant.now();
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c5").tag(TAG).concurrency(5)
        .claimInterval(Duration.ofMillis(20)).heartbeatInterval(Duration.ofMillis(50))
        .jobTimeout(Duration.ofMillis(300)).timeoutFailure(Failure.Kind.PERMANENT)
        .permanentWhen(t -> t instanceof UnsupportedOperationException)
        .runner(ctx -> {
          switch (ctx.spec().benchmarkGroup()) {
            case "throws":
              if (ctx.job().attempt() == 1) {
                throw new IllegalStateException("flaky network");
              }
              return JobOutcome.success();
            case "permanent":
              throw new PermanentJobException("artifact abc not found");
            case "classified":
              throw new UnsupportedOperationException("no such benchmark");
            case "returns":
              return JobOutcome.permanentFailure("bad input");
            default:
              ctx.awaitStop(Duration.ofSeconds(30));
              return JobOutcome.success();   // a success after the timeout stopped it does not count
          }
        }).start()) {
      await("every job is terminal", () -> Queues.jobs(queue, request).stream().allMatch(j -> j.state().isTerminal()));
      assertThat(job(queue, request, "throws").state()).isEqualTo(JobState.SUCCEEDED);
      assertThat(job(queue, request, "throws").transientRetries()).isEqualTo(1);
      assertThat(job(queue, request, "throws").lastError()).hasValueSatisfying(e -> assertThat(e)
          .isEqualTo("java.lang.IllegalStateException: flaky network"));
      assertThat(job(queue, request, "permanent").state()).isEqualTo(JobState.FAILED);
      assertThat(job(queue, request, "permanent").failure().orElseThrow().toString()).contains("artifact abc not found");
      assertThat(job(queue, request, "classified").state()).isEqualTo(JobState.FAILED);
      assertThat(job(queue, request, "returns").state()).isEqualTo(JobState.FAILED);
      assertThat(job(queue, request, "slow").state()).isEqualTo(JobState.FAILED);
      assertThat(job(queue, request, "slow").failure().orElseThrow().toString()).contains("timed out after PT0.3S");
      MeterRegistry m = collector.meterRegistry();
      assertThat(count(m, CollectorMeters.FAILURES, "kind", "transient", "cause", "exception")).isEqualTo(1);
      assertThat(count(m, CollectorMeters.FAILURES, "kind", "permanent", "cause", "exception")).isEqualTo(2);
      assertThat(count(m, CollectorMeters.FAILURES, "kind", "permanent", "cause", "outcome")).isEqualTo(1);
      assertThat(count(m, CollectorMeters.FAILURES, "kind", "permanent", "cause", "timeout")).isEqualTo(1);
      assertThat(count(m, CollectorMeters.JOBS_CLAIMED)).isEqualTo(6);
    }
    assertThat(Duration.between(start, Instant.now())).isLessThan(Queues.LIVENESS);
  }

  @Test
  void anIdleCollectorIsWokenByItsWakeupsLongBeforeItsClaimInterval() throws Exception {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("woken", TAG));
    // A wake-up source in the shape of PostgresQueueWakeups: a generation per tag and a wait for it to move.
    Object lock = new Object();
    long[] generation = {0};
    AtomicInteger waits = new AtomicInteger();
    Wakeups wakeups = Wakeups.of(tag -> {
      synchronized (lock) {
        return generation[0];
      }
    }, (tag, seen, maxWait) -> {
      waits.incrementAndGet();
      synchronized (lock) {
        while (generation[0] == seen) {
          lock.wait();
        }
        return true;
      }
    });
    CountDownLatch ran = new CountDownLatch(1);
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c7").tag(TAG).claimInterval(Duration.ofHours(1))
        .wakeups(wakeups).runner(ctx -> {
          ran.countDown();
          return JobOutcome.success();
        }).start()) {
      await("the collector waits after an empty claim", () -> waits.get() >= 1);
      RequestId request = started(queue, "ggg777");
      synchronized (lock) {
        generation[0]++;
        lock.notifyAll();
      }
      assertThat(ran.await(20, TimeUnit.SECONDS)).as("woken and claimed, within an hour-long interval").isTrue();
      await("the job completes", () -> job(queue, request, "woken").state() == JobState.SUCCEEDED);
      assertThat(collector.isClaiming()).isTrue();
    }
  }

  @Test
  void meterTagsNameTheCollectorAndItsPool() {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("g", TAG));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("c6").tag(TAG).meterRegistry(registry)
        .claimInterval(Duration.ofMillis(20)).runner(ctx -> JobOutcome.success()).start()) {
      assertThat(collector.meterRegistry()).isSameAs(registry);
      await("claims are counted", () -> count(registry, CollectorMeters.CLAIMS, "result", "empty") >= 1);
      assertThat(registry.find(CollectorMeters.CLAIMS).tags(CollectorMeters.TAG_COLLECTOR, "c6",
          CollectorMeters.TAG_POOL, TAG).counters()).isNotEmpty();
      assertThat(registry.find(CollectorMeters.JOBS_RUNNING).gauge()).isNotNull();
    }
  }

  @Test
  void badSettingsAreOneLineQueueErrors() {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(3), Duration.ofSeconds(3),
        JobSpec.required("g", TAG));
    assertThatThrownBy(() -> CollectorRuntime.builder(queue).name("x").tag(TAG).start())
        .isInstanceOf(InvalidQueueInputException.class).hasMessage("job runner is missing");
    assertThatThrownBy(() -> CollectorRuntime.builder(queue).concurrency(0))
        .isInstanceOf(InvalidQueueInputException.class).hasMessage("collector concurrency is 0; expected 1 to 1024");
    assertThatThrownBy(() -> CollectorRuntime.builder(queue).name("x").tag(TAG).heartbeatInterval(Duration.ofSeconds(3))
        .runner(ctx -> JobOutcome.success()).start())
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("not shorter than the lease");
    assertThatThrownBy(() -> CollectorRuntime.builder(queue).name("has space"))
        .isInstanceOf(InvalidQueueInputException.class);
    queue.registerCollector("taken", "other", true);
    assertThatThrownBy(() -> CollectorRuntime.builder(queue).name("taken").tag(TAG).runner(ctx -> JobOutcome.success())
        .start()).isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("is taken");
  }

  @Test
  void reportsWhatRegisteringTheDetectedInventoryDid() {
    JobQueue queue = queue(Clock.systemUTC(), Duration.ofSeconds(30), Duration.ofSeconds(30),
        JobSpec.required("g", TAG).withGpus(1, Duration.ofMinutes(1)));
    started(queue, "s1");
    // The host held device 0 for a job when it restarted and found only device 1.
    assertThat(queue.registerHost("h", TAG, Devices.count(2)).status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(queue.claim("h", 1).claims()).extracting(c -> c.lease().devices()).containsExactly(List.of(0));
    Devices found = new Devices(List.of(1), List.of());
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("h").tag(TAG).devices(found)
        .claimInterval(Duration.ofHours(1)).runner(ctx -> JobOutcome.success()).start()) {
      assertThat(collector.registration().orElseThrow().status()).isEqualTo(RegisterResult.Status.INVENTORY_PENDING);
      assertThat(collector.registration().orElseThrow().collector().pendingDevices()).contains(found);
    }
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("h").tag(TAG).devices(found)
        .claimInterval(Duration.ofHours(1)).register(false).runner(ctx -> JobOutcome.success()).start()) {
      assertThat(collector.registration()).isEmpty();
    }
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("h2").tag(TAG).devices(found)
        .claimInterval(Duration.ofHours(1)).runner(ctx -> JobOutcome.success()).start()) {
      assertThat(collector.registration().orElseThrow().status()).isEqualTo(RegisterResult.Status.REGISTERED);
    }
    try (CollectorRuntime collector = CollectorRuntime.builder(queue).name("h2").tag(TAG).devices(Devices.count(2))
        .claimInterval(Duration.ofHours(1)).runner(ctx -> JobOutcome.success()).start()) {
      assertThat(collector.registration().orElseThrow().status()).isEqualTo(RegisterResult.Status.INVENTORY_UPDATED);
    }
    assertThat(queue.retireCollector("h").status()).isEqualTo(RetireResult.Status.RETIRING);
    assertThatThrownBy(() -> CollectorRuntime.builder(queue).name("h").tag(TAG).devices(found)
        .runner(ctx -> JobOutcome.success()).start()).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("collector h is being retired and still holds a live lease; expected it to start again once its"
            + " leases end (at most one lease duration, 30 s)");
  }
}

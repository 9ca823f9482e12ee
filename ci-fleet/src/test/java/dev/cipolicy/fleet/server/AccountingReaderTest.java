package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.server.Accounting.JobRun;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.model.CiRun;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.QueueStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Where the reader takes each instant from: ready is the job's creation; the first claim and the last attempt's
 * start are the store's attempt records (read once per claim of a job); a store that records no attempts leaves
 * the stand-ins: the claim this server saw, else a succeeded job's finish minus its result's {@code seconds},
 * else unknown. Jobs never claimed are not runs; a request completed before the window is not read.
 */
class AccountingReaderTest {

  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  /** The window's start in {@link Scenario}. */
  private static final Instant WINDOW = T0.plusSeconds(3600);

  /**
   * An old nightly run completed before the window; in the window a run of three jobs created at {@code ready}:
   * "done" claimed at ready + 120 s, failed transiently at + 150 s, claimed again at + 200 s and completed at
   * + 420 s with a result claiming 290.5 s; "running" claimed at + 120 s (this server saw it at + 121 s); "queued"
   * (of a pool with no host) never claimed.
   */
  private static final class Scenario {
    final AtomicReference<Instant> now = new AtomicReference<>(T0);
    final AtomicInteger attemptReads = new AtomicInteger();
    final JobQueue queue;
    final QueueStore store;
    final Claim old;
    final Claim done;
    final Claim running;
    final Instant ready;

    Scenario(boolean recordsAttempts) {
      store = store(new InMemoryQueueStore(now::get), recordsAttempts, attemptReads);
      queue = JobQueue.of(store, QueueSettings.builder().noJobs(true).leaseDuration(Duration.ofHours(2))
          .collectorTimeout(Duration.ofHours(2)).build());
      queue.registerHost("h0", "h200", Devices.count(8));
      queue.submitCiRun(CiRun.of("acme/m", 1, 1, "a".repeat(40), "push").withCadence("nightly"),
          List.of(JobSpec.required("old", "h200").withGpus(8, Duration.ofMinutes(5))));
      old = queue.claim("h0", 1).claims().get(0);
      now.set(T0.plusSeconds(600));
      queue.complete(old.lease(), ResultPayload.ofText("{\"seconds\": 600}"));
      queue.tick();
      now.set(WINDOW.plusSeconds(60));
      queue.submitCiRun(CiRun.of("acme/m", 2, 1, "b".repeat(40), "push"),
          List.of(JobSpec.required("done", "h200").withGpus(4, Duration.ofMinutes(5)),
              JobSpec.required("running", "h200").withGpus(4, Duration.ofMinutes(5)),
              JobSpec.required("queued", "h100").withGpus(8, Duration.ofMinutes(5))));
      ready = now.get();
      now.set(ready.plusSeconds(120));
      List<Claim> claims = queue.claim("h0", 2).claims();
      assertThat(claims).hasSize(2);
      Claim first = claims.stream().filter(c -> c.job().spec().benchmarkGroup().equals("done")).findFirst().get();
      running = claims.stream().filter(c -> c.job().spec().benchmarkGroup().equals("running")).findFirst().get();
      now.set(ready.plusSeconds(150));
      queue.fail(first.lease(), Failure.transientFailure("lost the device"));
      now.set(ready.plusSeconds(200));
      done = queue.claim("h0", 1).claims().get(0);
      assertThat(done.job().id()).isEqualTo(first.job().id());
      now.set(ready.plusSeconds(420));
      queue.complete(done.lease(), ResultPayload.ofText("{\"seconds\": 290.5}"));
    }

    AccountingReader reader() {
      Instant seen = ready.plusSeconds(121);
      return new AccountingReader(store,
          (job, attempt) -> job.equals(running.job().id()) && attempt == 1 ? seen : null);
    }
  }

  @Test
  void theClaimIsTheFirstAttemptsStartAndTheRunTheLastAttempts() {
    Scenario s = new Scenario(true);
    AccountingReader.Read read = s.reader().read(WINDOW);

    Map<Long, JobRun> byId = read.runs().stream().collect(Collectors.toMap(JobRun::jobId, r -> r));
    assertThat(byId).containsOnlyKeys(s.done.job().id().value(), s.running.job().id().value());
    JobRun d = byId.get(s.done.job().id().value());
    assertThat(d.cadence()).isEqualTo("regular");
    assertThat(d.pool()).isEqualTo("h200");
    assertThat(d.gpus()).isEqualTo(4);
    assertThat(d.readyAt()).isEqualTo(s.ready);
    // the first claim, not the last one, and not the result's "seconds" (which would say + 129.5 s)
    assertThat(d.claimedAt()).isEqualTo(s.ready.plusSeconds(120));
    assertThat(d.startedAt()).isEqualTo(s.ready.plusSeconds(200));
    assertThat(d.endedAt()).isEqualTo(s.ready.plusSeconds(420));
    JobRun r = byId.get(s.running.job().id().value());
    // the store's claim instant, not when this server saw the lease (+ 121 s)
    assertThat(r.claimedAt()).isEqualTo(s.ready.plusSeconds(120));
    assertThat(r.startedAt()).isEqualTo(s.ready.plusSeconds(120));
    assertThat(r.endedAt()).isNull();
    assertThat(read.truncated()).isFalse();

    // waits: both jobs were first claimed 120 s after they became ready
    Api.AccountingDto a = Accounting.compute(s.ready.plusSeconds(420), Duration.ofMinutes(60), read.runs(),
        List.of(), false);
    assertThat(a.waits()).singleElement().satisfies(w -> {
      assertThat(w.gpus()).isEqualTo(4);
      assertThat(w.jobs()).isEqualTo(2);
      assertThat(w.p99Seconds()).isEqualTo(120.0);
    });

    // with a window reaching back to t0, the old nightly run is read too
    JobRun o = s.reader().read(T0).runs().stream().filter(x -> x.jobId() == s.old.job().id().value())
        .findFirst().orElseThrow();
    assertThat(o.cadence()).isEqualTo("nightly");
    assertThat(o.claimedAt()).isEqualTo(T0);
  }

  @Test
  void attemptsAreReadOncePerClaimOfAJob() {
    Scenario s = new Scenario(true);
    AccountingReader reader = s.reader();
    reader.read(WINDOW);
    assertThat(s.attemptReads.get()).as("one read per claimed job").isEqualTo(2);
    reader.read(WINDOW);
    assertThat(s.attemptReads.get()).as("nothing claimed since").isEqualTo(2);
    s.now.set(s.ready.plusSeconds(500));
    s.queue.fail(s.running.lease(), Failure.transientFailure("lost the device"));
    assertThat(s.queue.claim("h0", 1).claims()).hasSize(1);
    reader.read(WINDOW);
    assertThat(s.attemptReads.get()).as("the one job claimed since").isEqualTo(3);
  }

  @Test
  void aStoreWithoutAttemptsLeavesTheStandIns() {
    Scenario s = new Scenario(false);
    AccountingReader reader = s.reader();
    AccountingReader.Read read = reader.read(WINDOW);

    Map<Long, JobRun> byId = read.runs().stream().collect(Collectors.toMap(JobRun::jobId, r -> r));
    JobRun d = byId.get(s.done.job().id().value());
    assertThat(d.claimedAt()).isNull();
    assertThat(d.startedAt()).isEqualTo(s.ready.plusSeconds(420).minusMillis(290_500));
    JobRun r = byId.get(s.running.job().id().value());
    assertThat(r.claimedAt()).isNull();
    assertThat(r.startedAt()).isEqualTo(s.ready.plusSeconds(121));
    JobRun o = reader.read(T0).runs().stream().filter(x -> x.jobId() == s.old.job().id().value())
        .findFirst().orElseThrow();
    assertThat(o.startedAt()).isEqualTo(T0);
    assertThat(s.attemptReads.get()).as("asked once, then not again").isEqualTo(1);
  }

  /** The store, counting its attempt reads; when {@code recordsAttempts} is false it says it records none. */
  private static QueueStore store(QueueStore real, boolean recordsAttempts, AtomicInteger attemptReads) {
    return (QueueStore) Proxy.newProxyInstance(QueueStore.class.getClassLoader(), new Class<?>[] {QueueStore.class},
        (proxy, method, args) -> {
          if (method.getName().equals("attempts")) {
            attemptReads.incrementAndGet();
            if (!recordsAttempts) {
              throw new UnsupportedOperationException("no attempts");
            }
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}

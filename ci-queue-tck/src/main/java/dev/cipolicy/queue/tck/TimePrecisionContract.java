package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.TickResult;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kit's contract for the precision of instants: every store keeps, compares and returns whole
 * microseconds ({@link QueueStore#PRECISION}), truncating what it is given and what it derives, so that a
 * value a call returns equals what the store reads back and every store returns the same values, on a clock
 * of any resolution. The other groups run on a clock of whole seconds, which never shows a difference; these
 * tests run the store on clocks with odd nanoseconds.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Time precision" group.
 */
abstract class TimePrecisionContract extends KitGroup {

  /** An instant whose nanoseconds are not a whole microsecond. */
  static final Instant ODD = START.plusNanos(123_456_789);

  TimePrecisionContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private static Instant micros(Instant instant) {
    return QueueStore.truncate(instant);
  }

  @Test
  @DisplayName("the engine reads its clock to the microsecond: what it returns is what the store keeps")
  void engineReadsMicroseconds() {
    clock.set(ODD);
    register("c1", "x86");
    Request r = submit(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    assertThat(r.createdAt()).isEqualTo(START.plusNanos(123_456_000));
    assertThat(reload(r)).isEqualTo(r);
    TickResult tick = queue.tick();
    assertThat(tick.at()).isEqualTo(START.plusNanos(123_456_000));
    Request started = tick.started().get(0).request().orElseThrow();
    assertThat(reload(started)).isEqualTo(started);
    clock.advance(Duration.ofNanos(1_999));
    Claim claim = claimOne("c1");
    assertThat(claim.lease().expiresAt()).isEqualTo(START.plusNanos(123_458_000).plus(LEASE));
    assertThat(reload(claim.job())).isEqualTo(claim.job());
    clock.advance(Duration.ofNanos(999));
    LeaseResult done = queue.complete(claim.lease());
    assertThat(done.job().orElseThrow().finishedAt()).contains(START.plusNanos(123_459_000));
    assertThat(reload(done.job().orElseThrow())).isEqualTo(done.job().orElseThrow());
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusNanos(123_459_000));
  }

  @Test
  @DisplayName("a store whose clock reads nanoseconds keeps whole microseconds, and returns what it keeps")
  void storeTruncatesItsClock() {
    clock.set(ODD);
    Collector registered = store.registerCollector("c1", "x86", true).collector();
    assertThat(registered.registeredAt()).isEqualTo(micros(ODD));
    assertThat(registered.lastHeartbeatAt()).isEqualTo(micros(ODD));
    assertThat(store.collector("c1")).contains(registered);
    assertThat(store.now()).isEqualTo(micros(ODD));

    Instant submittedAt = clock.advance(Duration.ofNanos(1_001));
    Request submitted = store.submit(NewRequest.master("m1", null)).request();
    assertThat(submitted.createdAt()).isEqualTo(micros(submittedAt));
    assertThat(store.request(submitted.id())).contains(submitted);
    Request waiting = store.submit(NewRequest.tryAwaitingArtifacts(5)).request();
    clock.advance(Duration.ofNanos(3));
    Request attached = store.attachArtifacts(waiting.id(), "t5", "m1").request().orElseThrow();
    assertThat(store.request(waiting.id())).contains(attached);

    Instant t = clock.advance(Duration.ofNanos(20_002));
    List<JobSpec> specs = List.of(JobSpec.required("a", "x86"), JobSpec.required("b", "x86"),
        JobSpec.required("c", "x86"), JobSpec.required("d", "x86"));
    StartResult start = store.startRequest(StartCommand.builder().requestId(submitted.id()).jobs(specs)
        .maxInProgress(2).build());
    Request running = start.request().orElseThrow();
    assertThat(running.startedAt()).contains(micros(t));
    assertThat(store.request(running.id())).contains(running);
    assertThat(start.jobs()).allSatisfy(j -> assertThat(j.createdAt()).isEqualTo(micros(t)));
    assertThat(store.jobs(running.id())).isEqualTo(start.jobs());

    Instant claimedAt = clock.advance(Duration.ofNanos(300_003));
    ClaimResult claimed = store.claim(ClaimCommand.builder().collector("c1").leaseDuration(LEASE.plusNanos(777))
        .collectorTimeout(LEASE).limit(4).build());
    assertThat(claimed.claims()).hasSize(4);
    for (Claim claim : claimed.claims()) {
      assertThat(claim.lease().expiresAt()).as("now and now + lease duration truncated")
          .isEqualTo(micros(claimedAt).plus(LEASE));
      assertThat(store.job(claim.job().id())).contains(claim.job());
    }
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(micros(claimedAt));
    List<LeaseRef> refs = claimed.claims().stream().map(c -> LeaseRef.of(c.lease())).toList();

    Instant beat = clock.advance(Duration.ofNanos(4_000_005));
    Job renewed = store.heartbeat(refs.get(0), LEASE.plusNanos(1_500)).job().orElseThrow();
    assertThat(renewed.lease().orElseThrow().expiresAt()).isEqualTo(micros(beat).plus(LEASE).plusNanos(1_000));
    assertThat(store.job(renewed.id())).contains(renewed);

    Instant end = clock.advance(Duration.ofNanos(5_000_007));
    Job succeeded = store.complete(refs.get(0), ResultPayload.ofText("ok")).job().orElseThrow();
    assertThat(succeeded.finishedAt()).contains(micros(end));
    assertThat(store.job(succeeded.id())).contains(succeeded);
    assertThat(store.result(succeeded.id()).orElseThrow().storedAt()).isEqualTo(micros(end));
    Instant failedAt = clock.advance(Duration.ofNanos(11));
    Job failed = store.fail(refs.get(1), Failure.permanent("broken"), 2).job().orElseThrow();
    assertThat(failed.failure().orElseThrow().at()).isEqualTo(micros(failedAt));
    assertThat(failed.finishedAt()).contains(micros(failedAt));
    assertThat(store.job(failed.id())).contains(failed);
    clock.advance(Duration.ofNanos(2));
    Job released = store.release(refs.get(2)).job().orElseThrow();
    assertThat(store.job(released.id())).contains(released);
    Instant batchAt = clock.advance(Duration.ofNanos(2_004));
    List<LeaseResult> batch = store.completeAll(List.of(refs.get(3)));
    Job batched = batch.get(0).job().orElseThrow();
    assertThat(batched.finishedAt()).contains(micros(batchAt));
    assertThat(store.job(batched.id())).contains(batched);

    Instant beat2 = clock.advance(Duration.ofNanos(6_000_019));
    Collector alive = store.collectorHeartbeat("c1").collector().orElseThrow();
    assertThat(alive.lastHeartbeatAt()).isEqualTo(micros(beat2));
    assertThat(store.collector("c1")).contains(alive);

    clock.advance(Duration.ofNanos(23));
    Claim second = store.claim(ClaimCommand.builder().collector("c1").leaseDuration(LEASE).build()).claims().get(0);
    clock.advance(Duration.ofNanos(29));
    store.complete(LeaseRef.of(second.lease()));
    Instant completedAt = clock.advance(Duration.ofNanos(7_000_031));
    CompletionResult completion = store.completeIfDone(running.id());
    assertThat(completion.status()).isEqualTo(CompletionResult.Status.COMPLETED);
    assertThat(completion.request().orElseThrow().finishedAt()).contains(micros(completedAt));
    assertThat(store.request(running.id())).isEqualTo(completion.request());

    Instant cancelledAt = clock.advance(Duration.ofNanos(37));
    CancelResult cancel = store.cancel(attached.id(), "superseded");
    assertThat(cancel.request().orElseThrow().finishedAt()).contains(micros(cancelledAt));
    assertThat(store.request(attached.id())).isEqualTo(cancel.request());
  }

  @Test
  @DisplayName("a lease expires at the microsecond its expiry names, whatever the nanoseconds of now")
  void leaseExpiresAtItsMicrosecond() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Instant claimedAt = ODD;
    clock.set(claimedAt);
    Claim claim = store.claim(ClaimCommand.builder().collector("c1").leaseDuration(LEASE).build()).claims().get(0);
    Instant expiry = micros(claimedAt).plus(LEASE);
    assertThat(claim.lease().expiresAt()).isEqualTo(expiry);
    LeaseRef ref = LeaseRef.of(claim.lease());

    Instant lastNano = expiry.minusNanos(1);
    clock.set(lastNano);
    LeaseResult beat = store.heartbeat(ref, LEASE);
    assertThat(beat.status()).as("live in the last nanosecond before its expiry").isEqualTo(LeaseStatus.OK);
    Instant renewed = micros(lastNano).plus(LEASE);
    assertThat(beat.job().orElseThrow().lease().map(Lease::expiresAt)).contains(renewed);

    Instant withinTheMicrosecond = renewed.plusNanos(500);
    clock.set(withinTheMicrosecond);
    Job before = store.job(claim.job().id()).orElseThrow();
    LeaseResult late = store.complete(ref);
    assertThat(late.status()).as("expired from the first nanosecond of its expiry's microsecond")
        .isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(store.job(claim.job().id())).contains(before);
    ExpiryResult expired = store.expireLeases(2);
    assertThat(expired.rescued()).extracting(Job::id).containsExactly(claim.job().id());
    assertThat(store.job(claim.job().id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  @DisplayName("an engine on a clock ticking in odd nanoseconds reports only instants the store keeps")
  void tickingClock() {
    SettableClock ticking = SettableClock.ticking(ODD, Duration.ofNanos(1_001));
    QueueStore store = newStore(ticking);
    JobQueue engine = JobQueue.of(store, settings());
    engine.registerCollector("c1", "x86", true);
    engine.registerCollector("a1", "arm", true);
    List<Instant> seen = new ArrayList<>();
    Request r = engine.submit(NewRequest.master("m1", null).withBenchmarkGroups("g", "h")).request();
    seen.add(r.createdAt());
    TickResult started = engine.tick();
    seen.add(started.at());
    assertThat(store.jobs(r.id())).isEqualTo(started.started().get(0).jobs());
    List<Claim> claims = new ArrayList<>(engine.claim("c1", 2).claims());
    claims.addAll(engine.claim("a1", 2).claims());
    assertThat(claims).hasSize(4);
    for (Claim claim : claims) {
      seen.add(claim.lease().expiresAt());
      assertThat(store.job(claim.job().id())).contains(claim.job());
    }
    LeaseResult beat = engine.heartbeat(claims.get(0).lease());
    seen.add(beat.job().orElseThrow().lease().orElseThrow().expiresAt());
    assertThat(store.job(claims.get(0).job().id())).isEqualTo(beat.job());
    LeaseResult failed = engine.fail(claims.get(3).lease(), Failure.permanent("no arm host"));
    seen.add(failed.job().orElseThrow().finishedAt().orElseThrow());
    assertThat(store.job(claims.get(3).job().id())).isEqualTo(failed.job());
    for (LeaseResult done : engine.completeAll(claims.subList(0, 3).stream().map(Claim::lease).toList())) {
      seen.add(done.job().orElseThrow().finishedAt().orElseThrow());
      assertThat(store.job(done.job().orElseThrow().id())).isEqualTo(done.job());
    }
    TickResult completed = engine.tick();
    Request done = completed.completed().get(0);
    seen.add(done.finishedAt().orElseThrow());
    assertThat(store.request(done.id())).contains(done);
    assertThat(completed.events().get(0).completedAt()).isEqualTo(done.finishedAt().orElseThrow());
    for (Collector c : store.collectors()) {
      seen.add(c.lastHeartbeatAt());
      assertThat(engine.collectors()).anySatisfy(s -> assertThat(s.collector()).isEqualTo(c));
    }
    assertThat(seen).hasSize(14).allSatisfy(i -> assertThat(i).isEqualTo(micros(i)));
  }

  @Test
  @Timeout(120)
  @DisplayName("random command sequences on a clock ticking in odd nanoseconds keep the store equal to the"
      + " reference model")
  void modelOnNanosecondClock() {
    new QueueModelCheck(this::newStore, modelExamples(), true, operatorControls()).run();
  }
}

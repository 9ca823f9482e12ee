package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.ResultPayload;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CompleteAndClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for {@code completeAndClaim}: the completion is what {@code complete} gives, the claim
 * that follows it what {@code claim} gives, and a lease that the completion does not end (stale, expired,
 * unknown) claims nothing and changes nothing.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Complete and claim" group.
 */
abstract class CompleteAndClaimContract extends KitGroup {

  CompleteAndClaimContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private static ClaimCommand next(String collector, int limit) {
    return ClaimCommand.builder().collector(collector).leaseDuration(LEASE).limit(limit).build();
  }

  private String render(LeaseResult result) {
    return QueueModelCheck.render(result, id -> store.request(id).orElseThrow().label());
  }

  private String renderJobs(Request request) {
    StringBuilder sb = new StringBuilder();
    store.jobs(request.id()).forEach(j -> sb.append(QueueModelCheck.render(j, id -> store.request(id).orElseThrow()
        .label())).append('\n'));
    return sb.toString();
  }

  @Test
  @DisplayName("a live lease completes and the next job is claimed in the same call: succeeded at the clock's"
      + " time, a fresh lease on the next job by id, the heartbeat refreshed")
  void liveCompletesAndClaims() {
    register("c1", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    Claim first = claimOne("c1");
    clock.advance(Duration.ofSeconds(9));
    CompleteAndClaimResult got = store.completeAndClaim(LeaseRef.of(first.lease()), null, next("c1", 1));
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    Job done = got.completion().job().orElseThrow();
    assertThat(done.id()).isEqualTo(first.job().id());
    assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(done.finishedAt()).contains(START.plusSeconds(9));
    assertThat(reload(done)).isEqualTo(done);
    ClaimResult claim = got.claim().orElseThrow();
    assertThat(claim.status()).isEqualTo(ClaimResult.Status.OK);
    assertThat(got.claims()).hasSize(1);
    Claim second = got.claims().get(0);
    List<Job> x86 = jobsOn(r, "x86");
    assertThat(second.job().id()).as("the next queued job by id").isEqualTo(x86.get(1).id());
    assertThat(second.job().state()).isEqualTo(JobState.LEASED);
    assertThat(second.lease().collector()).isEqualTo("c1");
    assertThat(second.lease().expiresAt()).isEqualTo(START.plusSeconds(9).plus(LEASE));
    assertThat(second.lease().token()).isNotEqualTo(first.lease().token());
    assertThat(reload(second.job())).isEqualTo(second.job());
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(9));
  }

  @Test
  @DisplayName("a collector looping on completeAndClaim drains its tag, one job at a time, and its last call"
      + " completes with an empty claim")
  void loopDrains() {
    register("c1", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c", "d"));
    Lease lease = claimOne("c1").lease();
    List<JobId> order = new ArrayList<>(List.of(lease.jobId()));
    for (int i = 0; i < 10; i++) {
      CompleteAndClaimResult got = queue.completeAndClaim(lease, 1);
      assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
      assertThat(got.claim()).isPresent();
      if (got.claims().isEmpty()) {
        assertThat(jobsOn(r, "x86")).extracting(Job::id).containsExactlyElementsOf(order);
        assertThat(jobsOn(r, "x86")).allMatch(j -> j.state() == JobState.SUCCEEDED);
        return;
      }
      assertThat(got.claims()).hasSize(1);
      lease = got.claims().get(0).lease();
      order.add(lease.jobId());
    }
    throw new AssertionError("the loop did not drain four jobs in ten calls");
  }

  @Test
  @DisplayName("a claim limit above one claims up to that many after the completion")
  void limitAboveOne() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c", "d"));
    Claim first = claimOne("c1");
    CompleteAndClaimResult got = queue.completeAndClaim(first.lease(), 2);
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(got.claims()).hasSize(2);
    assertThat(got.claims()).extracting(c -> c.job().id().value()).isSorted();
  }

  @Test
  @DisplayName("an expired lease whose job another collector won: STALE_LEASE with the job unchanged, no claim,"
      + " nothing queued is leased and the stale holder's heartbeat does not move")
  void staleClaimsNothing() {
    register("c1", "x86");
    register("c2", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    Lease zombie = claimOne("c1").lease();
    clock.advance(LEASE.plusSeconds(1));
    Claim winner = claimOne("c2");
    assertThat(winner.job().id()).as("c2 rescues the expired job first").isEqualTo(zombie.jobId());
    Instant c1Heartbeat = store.collector("c1").orElseThrow().lastHeartbeatAt();
    String before = renderJobs(r);
    CompleteAndClaimResult got = store.completeAndClaim(LeaseRef.of(zombie), ResultPayload.ofText("late"),
        next("c1", 1));
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(got.completion().job()).contains(reload(winner.job()));
    assertThat(got.claim()).isEmpty();
    assertThat(got.claims()).isEmpty();
    assertThat(renderJobs(r)).as("nothing changed").isEqualTo(before);
    assertThat(store.result(zombie.jobId())).isEmpty();
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(c1Heartbeat);
  }

  @Test
  @DisplayName("a wrong token and an unknown job: STALE_LEASE and NOT_FOUND, no claim, nothing changed")
  void wrongTokenAndUnknown() {
    register("c1", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
    Lease held = claimOne("c1").lease();
    String before = renderJobs(r);
    CompleteAndClaimResult wrong = store.completeAndClaim(new LeaseRef(held.jobId(), held.attempt(),
        held.token() + 1_000_003), null, next("c1", 1));
    assertThat(wrong.completion().status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(wrong.claim()).isEmpty();
    CompleteAndClaimResult unknown = store.completeAndClaim(new LeaseRef(JobId.of(999_999), 1, 1), null,
        next("c1", 1));
    assertThat(unknown.completion().status()).isEqualTo(LeaseStatus.NOT_FOUND);
    assertThat(unknown.completion().job()).isEmpty();
    assertThat(unknown.claim()).isEmpty();
    assertThat(renderJobs(r)).isEqualTo(before);
    assertThat(queue.complete(held).status()).as("the real lease is still live").isEqualTo(LeaseStatus.OK);
  }

  @Test
  @DisplayName("a lease flagged for cancellation is cancelled, which ends it, so the claim runs and takes the"
      + " next request's job")
  void flaggedCancelsThenClaims() {
    JobQueue two = JobQueue.of(store, QueueSettings.builder().from(settings()).maxInProgress(2).build());
    register("c1", "x86");
    Request m1 = submit(NewRequest.master("m1", null).withBenchmarkGroups("a"));
    Request m2 = submit(NewRequest.master("m2", null).withBenchmarkGroups("b"));
    assertThat(two.tick().started()).hasSize(2);
    Claim claim = two.claim("c1", 1).claims().get(0);
    assertThat(claim.job().requestId()).isEqualTo(m1.id());
    assertThat(two.cancel(m1.id(), "PR closed").status()).isEqualTo(CancelResult.Status.CANCELLED);
    CompleteAndClaimResult got = two.completeAndClaim(claim.lease(), ResultPayload.ofText("discarded"), 1);
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.CANCELLED);
    assertThat(got.completion().job().orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    assertThat(store.result(claim.job().id())).isEmpty();
    assertThat(got.claims()).hasSize(1);
    assertThat(got.claims().get(0).job().requestId()).isEqualTo(m2.id());
  }

  @Test
  @DisplayName("with a result: kept with the success exactly as complete keeps it")
  void resultKept() {
    register("c1", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b"));
    Claim claim = claimOne("c1");
    clock.advance(Duration.ofSeconds(3));
    CompleteAndClaimResult got = queue.completeAndClaim(claim.lease(), ResultPayload.ofText("{\"ms\": 4}"), 1);
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(store.result(claim.job().id()).orElseThrow().payload().text()).isEqualTo("{\"ms\": 4}");
    assertThat(store.result(claim.job().id()).orElseThrow().storedAt()).isEqualTo(START.plusSeconds(3));
    assertThat(got.claims()).hasSize(1);
  }

  @Test
  @DisplayName("a claim for an unknown or inactive collector gets nothing, and the completion still applies")
  void claimerRefused() {
    register("c1", "x86");
    register("idle", "x86");
    queue.deactivate("idle");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    Lease l1 = claimOne("c1").lease();
    CompleteAndClaimResult unknown = store.completeAndClaim(LeaseRef.of(l1), null, next("nobody", 1));
    assertThat(unknown.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(unknown.claim().orElseThrow().status()).isEqualTo(ClaimResult.Status.UNKNOWN_COLLECTOR);
    Lease l2 = claimOne("c1").lease();
    CompleteAndClaimResult inactive = store.completeAndClaim(LeaseRef.of(l2), null, next("idle", 1));
    assertThat(inactive.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(inactive.claim().orElseThrow().status()).isEqualTo(ClaimResult.Status.INACTIVE_COLLECTOR);
    assertThat(inactive.claims()).isEmpty();
    assertThat(jobsOn(r, "x86")).extracting(Job::state).containsExactly(JobState.SUCCEEDED, JobState.SUCCEEDED,
        JobState.QUEUED);
  }

  @Test
  @DisplayName("the claim processes the tag's expired leases first, as a plain claim does: the expired job is"
      + " requeued with a crash rescue and claimed again before the next queued job")
  void claimRescuesExpired() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    Lease crashed = claimOne("c2").lease();
    Lease mine = claimOne("c1").lease();
    clock.advance(LEASE.minusSeconds(1));
    mine = queue.heartbeat(mine).job().orElseThrow().lease().orElseThrow();
    clock.advance(Duration.ofSeconds(2));
    CompleteAndClaimResult got = queue.completeAndClaim(mine, 1);
    assertThat(got.completion().status()).isEqualTo(LeaseStatus.OK);
    assertThat(got.claims()).hasSize(1);
    Job rescued = got.claims().get(0).job();
    assertThat(rescued.id()).isEqualTo(crashed.jobId());
    assertThat(rescued.crashRescues()).isEqualTo(1);
  }

  @Test
  @DisplayName("a scenario of live, stale, flagged and unknown items gives, call by call, the results and the"
      + " stored jobs that complete followed by claim give")
  void equalsCompleteThenClaim() {
    List<String> combined = scenario(true);
    freshStore();
    List<String> separate = scenario(false);
    assertThat(combined).isEqualTo(separate);
  }

  /** Runs one scenario with completeAndClaim or with complete then claim; renders every result and the jobs. */
  private List<String> scenario(boolean combined) {
    JobQueue two = JobQueue.of(store, QueueSettings.builder().from(settings()).maxInProgress(2).build());
    register("c1", "x86");
    register("c2", "x86");
    Request m1 = submit(NewRequest.master("m1", null).withBenchmarkGroups("a", "b", "c"));
    Request m2 = submit(NewRequest.master("m2", null).withBenchmarkGroups("d", "e"));
    assertThat(two.tick().started()).hasSize(2);
    List<String> out = new ArrayList<>();
    Lease a = two.claim("c1", 1).claims().get(0).lease();
    Lease b = two.claim("c2", 1).claims().get(0).lease();
    clock.advance(Duration.ofSeconds(5));
    List<LeaseRef> calls = new ArrayList<>();
    calls.add(LeaseRef.of(a));
    calls.add(LeaseRef.of(a)); // again: stale now
    calls.add(new LeaseRef(JobId.of(999_999), 1, 1));
    for (LeaseRef ref : calls) {
      out.add(step(combined, ref, "c1"));
    }
    assertThat(two.cancel(m1.id(), "PR closed").status()).isEqualTo(CancelResult.Status.CANCELLED);
    out.add(step(combined, LeaseRef.of(b), "c2"));
    clock.advance(LEASE.plusSeconds(1));
    for (Job j : store.jobs(m2.id())) {
      if (j.state() == JobState.LEASED) {
        out.add(step(combined, LeaseRef.of(j.lease().orElseThrow()), "c2"));
      }
    }
    out.add(renderJobs(m1));
    out.add(renderJobs(m2));
    return out;
  }

  private String step(boolean combined, LeaseRef ref, String claimer) {
    if (combined) {
      CompleteAndClaimResult got = store.completeAndClaim(ref, null, next(claimer, 1));
      return render(got.completion()) + " | " + got.claim().map(this::renderClaim).orElse("no claim");
    }
    LeaseResult done = store.complete(ref);
    String claim = CompleteAndClaimResult.endsLease(done.status()) ? renderClaim(store.claim(next(claimer, 1)))
        : "no claim";
    return render(done) + " | " + claim;
  }

  private String renderClaim(ClaimResult claim) {
    return QueueModelCheck.render(claim, id -> store.request(id).orElseThrow().label());
  }
}

package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.RegisterResult;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for claims and the leases they return: tag, order and limit, no job leased twice,
 * unknown and inactive collectors, renewal and completion.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Claims and leases" group.
 */
abstract class ClaimsContract extends KitGroup {

  ClaimsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("a claim returns a lease with the job, its attempt, a token and the expiry")
  void claimReturnsLease() {
    register("c1", "x86");
    Request r = running(NewRequest.master("m1", null));
    clock.advance(Duration.ofSeconds(5));
    Claim claim = claimOne("c1");
    Lease lease = claim.lease();
    assertThat(lease.jobId()).isEqualTo(claim.job().id());
    assertThat(lease.attempt()).isEqualTo(1);
    assertThat(lease.expiresAt()).isEqualTo(START.plusSeconds(5).plus(LEASE));
    assertThat(lease.collector()).isEqualTo("c1");
    assertThat(claim.job().state()).isEqualTo(JobState.LEASED);
    assertThat(claim.job().requestId()).isEqualTo(r.id());
    assertThat(claim.job().affinity()).contains("c1");
    assertThat(reload(claim.job())).isEqualTo(claim.job());
  }

  @Test
  @DisplayName("a collector claims only jobs of its tag, in creation order, up to the limit")
  void tagOrderLimit() {
    register("c1", "x86");
    register("a1", "arm");
    Request r = running(NewRequest.master("m1", null));
    ClaimResult x86 = queue.claim("c1", 5);
    assertThat(x86.claims()).extracting(c -> c.job().spec()).containsExactly(
        JobSpec.required("compile", "x86"), JobSpec.required("runtime", "x86"));
    ClaimResult arm = queue.claim("a1", 1);
    assertThat(arm.claims()).extracting(c -> c.job().spec()).containsExactly(JobSpec.optionalJob("compile", "arm"));
    assertThat(jobsOn(r, "arm")).extracting(Job::state).containsExactly(JobState.LEASED, JobState.QUEUED);
  }

  @Test
  @DisplayName("claims never hand out the same job twice, and tokens are never reused")
  void noDoubleClaim() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("m1", null));
    Claim a = claimOne("c1");
    Claim b = claimOne("c2");
    assertThat(a.job().id()).isNotEqualTo(b.job().id());
    assertThat(a.lease().token()).isNotEqualTo(b.lease().token());
    claimNothing("c1");
  }

  @Test
  @DisplayName("an unknown or inactive collector claims nothing and is told why")
  void unknownOrInactive() {
    running(NewRequest.master("m1", null));
    assertThat(queue.claim("ghost").status()).isEqualTo(ClaimResult.Status.UNKNOWN_COLLECTOR);
    assertThat(queue.registerCollector("idle", "x86", false).status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(queue.claim("idle").status()).isEqualTo(ClaimResult.Status.INACTIVE_COLLECTOR);
    assertThat(queue.claim("idle").claims()).isEmpty();
    assertThat(store.inProgressRequests()).allSatisfy(r -> assertThat(store.jobs(r.id()))
        .allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.QUEUED)));
  }

  @Test
  @DisplayName("a heartbeat renews the lease with the same attempt and token")
  void heartbeatRenews() {
    register("c1", "x86");
    running(NewRequest.master("m1", null));
    Claim claim = claimOne("c1");
    clock.advance(Duration.ofSeconds(50));
    LeaseResult beat = queue.heartbeat(claim.lease());
    assertThat(beat.status()).isEqualTo(LeaseStatus.OK);
    Lease renewed = beat.job().orElseThrow().lease().orElseThrow();
    assertThat(renewed.expiresAt()).isEqualTo(START.plusSeconds(50).plus(LEASE));
    assertThat(renewed.token()).isEqualTo(claim.lease().token());
    clock.advance(Duration.ofSeconds(50));
    assertThat(queue.complete(claim.lease()).status()).as("long jobs survive by renewing").isEqualTo(LeaseStatus.OK);
  }

  @Test
  @DisplayName("a completed job is succeeded and finished at the clock's time")
  void completeJob() {
    register("c1", "x86");
    running(NewRequest.master("m1", null));
    Claim claim = claimOne("c1");
    clock.advance(Duration.ofSeconds(9));
    LeaseResult done = queue.complete(claim.lease());
    assertThat(done.status()).isEqualTo(LeaseStatus.OK);
    Job job = done.job().orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(job.finishedAt()).contains(START.plusSeconds(9));
    assertThat(job.lease()).isEmpty();
    assertThat(reload(job)).isEqualTo(job);
  }
}

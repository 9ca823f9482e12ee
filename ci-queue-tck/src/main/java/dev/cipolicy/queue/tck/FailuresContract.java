package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.LeaseResult;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for failures and budgets: permanent and transient failures, crash rescues, the two
 * separate budgets, release.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Failures and budgets" group.
 */
abstract class FailuresContract extends KitGroup {

  private Request request;

  FailuresContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void startARequest() {
    register("c1", "x86");
    register("c2", "x86");
    request = running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
  }

  @Test
  @DisplayName("a permanent failure fails the job at once with its detail")
  void permanent() {
    Claim claim = claimOne("c1");
    LeaseResult result = queue.fail(claim.lease(), Failure.permanent("artifact m1 not found"));
    Job job = result.job().orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.FAILED);
    JobFailure failure = job.failure().orElseThrow();
    assertThat(failure.reason()).isEqualTo(JobFailure.Reason.PERMANENT);
    assertThat(failure.detail()).isEqualTo("permanent failure reported by c1: artifact m1 not found");
    assertThat(failure.at()).isEqualTo(clock.instant());
  }

  @Test
  @DisplayName("a transient failure requeues the job for its collector and uses one transient retry")
  void transientRetry() {
    Claim claim = claimOne("c1");
    Job job = queue.fail(claim.lease(), Failure.transientFailure("db timeout")).job().orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.transientRetries()).isEqualTo(1);
    assertThat(job.crashRescues()).isZero();
    assertThat(job.lastError()).contains("db timeout");
    assertThat(job.affinity()).contains("c1");
    claimNothing("c2");
    Claim again = claimOne("c1");
    assertThat(again.lease().attempt()).isEqualTo(2);
  }

  @Test
  @DisplayName("exhausting the transient budget fails the job with the reason")
  void transientBudget() {
    for (int i = 0; i < 2; i++) {
      Claim claim = claimOne("c1");
      assertThat(queue.fail(claim.lease(), Failure.transientFailure("flaky " + i)).job().orElseThrow().state())
          .isEqualTo(JobState.QUEUED);
    }
    Claim last = claimOne("c1");
    Job job = queue.fail(last.lease(), Failure.transientFailure("flaky 2")).job().orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.FAILED);
    assertThat(job.transientRetries()).isEqualTo(2);
    assertThat(job.failure().orElseThrow().reason()).isEqualTo(JobFailure.Reason.TRANSIENT_BUDGET_EXHAUSTED);
    assertThat(job.failure().get().detail())
        .isEqualTo("transient failure reported by c1 after 2 transient retries (the budget): flaky 2");
  }

  @Test
  @DisplayName("an expired lease makes the job claimable again and counts as one crash rescue")
  void crashRescue() {
    Claim claim = claimOne("c1");
    clock.advance(LEASE);
    ExpiryResult expiry = store.expireLeases(2);
    assertThat(expiry.rescued()).extracting(Job::id).containsExactly(claim.job().id());
    Job job = reload(claim.job());
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.crashRescues()).isEqualTo(1);
    assertThat(job.affinity()).contains("c1");
    assertThat(store.expireLeases(2).isEmpty()).isTrue();
  }

  @Test
  @DisplayName("a lease is live until its expiry instant, exclusive")
  void expiryBoundary() {
    claimOne("c1");
    clock.advance(LEASE.minusMillis(1));
    assertThat(store.expireLeases(2).isEmpty()).isTrue();
    clock.advance(Duration.ofMillis(1));
    assertThat(store.expireLeases(2).rescued()).hasSize(1);
  }

  @Test
  @DisplayName("exhausting the crash-rescue budget fails the job with the reason")
  void crashBudget() {
    for (int i = 0; i < 3; i++) {
      claimOne("c1");
      clock.advance(LEASE);
      queue.tick();
    }
    Job job = store.jobs(request.id()).stream().filter(j -> j.spec().collectorTag().equals("x86")).findFirst()
        .orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.FAILED);
    assertThat(job.crashRescues()).isEqualTo(2);
    assertThat(job.failure().orElseThrow().reason()).isEqualTo(JobFailure.Reason.CRASH_BUDGET_EXHAUSTED);
    assertThat(job.failure().get().detail()).isEqualTo("lease of c1 expired at " + START.plus(LEASE.multipliedBy(3))
        + " after 2 crash rescues (the budget)");
  }

  @Test
  @DisplayName("the two budgets are separate: crash rescues do not use transient retries, nor the reverse")
  void separateBudgets() {
    Claim first = claimOne("c1");
    queue.fail(first.lease(), Failure.transientFailure("t1"));
    Claim second = claimOne("c1");
    queue.fail(second.lease(), Failure.transientFailure("t2"));
    claimOne("c1");
    clock.advance(LEASE);
    queue.tick();
    claimOne("c1");
    clock.advance(LEASE);
    queue.tick();
    Job job = reload(first.job());
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.transientRetries()).isEqualTo(2);
    assertThat(job.crashRescues()).isEqualTo(2);
    assertThat(job.attempt()).isEqualTo(4);
  }

  @Test
  @DisplayName("release hands the job back without spending a budget or keeping affinity")
  void release() {
    Claim claim = claimOne("c1");
    Job job = queue.release(claim.lease()).job().orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.crashRescues()).isZero();
    assertThat(job.transientRetries()).isZero();
    assertThat(job.affinity()).isEmpty();
    assertThat(claimOne("c2").job().id()).isEqualTo(job.id());
  }
}

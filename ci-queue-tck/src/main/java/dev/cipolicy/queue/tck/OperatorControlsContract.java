package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.OperatorAction;
import dev.cipolicy.queue.spi.OperatorAudit;
import dev.cipolicy.queue.spi.RetryResult;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for an operator's controls: retrying a failed or cancelled job (reopening its completed
 * request within the cap), pausing and resuming a pool, and the operator audit of a store that keeps one.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Operator controls" group, for stores whose kit says
 * they have them ({@link QueueStoreCompatibilityKit#operatorControls()}).
 */
abstract class OperatorControlsContract extends KitGroup {

  OperatorControlsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void onlyWithControls() {
    assumeTrue(operatorControls(), "the store has no operator controls");
    register("c1", "x86");
  }

  /** Claims the x86 jobs of the request one by one, failing the first permanently and completing the rest. */
  private Job failFirstCompleteRest() {
    Claim first = claimOne("c1");
    assertThat(queue.fail(first.lease(), Failure.permanent("segfault")).status()).isEqualTo(LeaseStatus.OK);
    completeAll("c1");
    return reload(first.job());
  }

  @Test
  @DisplayName("a failed job of a request in progress is queued again with fresh budgets and claimed as a new attempt")
  void retryInProgress() {
    Request request = running(NewRequest.tryWithArtifacts(42, "t1", "m0"));
    Claim claim = claimOne("c1");
    queue.fail(claim.lease(), Failure.transientFailure("flaky"));
    Claim again = claimOne("c1");
    assertThat(again.job().id()).isEqualTo(claim.job().id());
    queue.fail(again.lease(), Failure.permanent("segfault"));
    assertThat(reload(claim.job()).state()).isEqualTo(JobState.FAILED);

    RetryResult result = queue.retryJob(claim.job().id());

    assertThat(result.status()).isEqualTo(RetryResult.Status.RETRIED);
    assertThat(result.reopened()).isFalse();
    Job queued = reload(claim.job());
    assertThat(result.job()).contains(queued);
    assertThat(queued.state()).isEqualTo(JobState.QUEUED);
    assertThat(queued.transientRetries()).isZero();
    assertThat(queued.crashRescues()).isZero();
    assertThat(queued.affinity()).isEmpty();
    assertThat(queued.failure()).isEmpty();
    assertThat(queued.finishedAt()).isEmpty();
    assertThat(queued.attempt()).isEqualTo(2);
    assertThat(reload(request).state()).isEqualTo(RequestState.IN_PROGRESS);
    Claim third = claimOne("c1");
    assertThat(third.job().id()).isEqualTo(claim.job().id());
    assertThat(third.lease().attempt()).isEqualTo(3);
  }

  @Test
  @DisplayName("retrying a job of a completed request reopens it: in progress, out of the history, completed again")
  void retryReopens() {
    Request request = running(NewRequest.tryWithArtifacts(42, "t1", "m0"));
    Job failed = failFirstCompleteRest();
    assertThat(queue.store().completeIfDone(request.id()).status()).isEqualTo(CompletionResult.Status.COMPLETED);
    assertThat(reload(request).outcome()).contains(Outcome.PARTIAL_FAILURE);
    clock.advance(Duration.ofSeconds(5));

    RetryResult result = queue.retryJob(failed.id());

    assertThat(result.status()).isEqualTo(RetryResult.Status.RETRIED);
    assertThat(result.reopened()).isTrue();
    Request reopened = reload(request);
    assertThat(result.request()).contains(reopened);
    assertThat(reopened.state()).isEqualTo(RequestState.IN_PROGRESS);
    assertThat(reopened.outcome()).isEmpty();
    assertThat(reopened.finishedAt()).isEmpty();
    assertThat(reopened.startedAt()).isEqualTo(request.startedAt());
    assertThat(store.inProgressRequests()).extracting(Request::id).containsExactly(request.id());
    assertThat(store.openRequests()).extracting(Request::id).containsExactly(request.id());
    assertThat(store.history(10, null).entries()).extracting(HistoryEntry::request).extracting(Request::id)
        .doesNotContain(request.id());
    assertThat(store.completeIfDone(request.id()).status()).isEqualTo(CompletionResult.Status.NOT_DONE);

    completeAll("c1");
    CompletionResult done = store.completeIfDone(request.id());
    assertThat(done.status()).isEqualTo(CompletionResult.Status.COMPLETED);
    assertThat(done.request().orElseThrow().outcome()).contains(Outcome.SUCCESS);
    assertThat(done.request().orElseThrow().finishedAt()).contains(START.plusSeconds(5));
    assertThat(store.history(10, null).entries()).extracting(HistoryEntry::request).extracting(Request::id)
        .containsExactly(request.id());
  }

  @Test
  @DisplayName("a retry is refused, changing nothing: unknown job, job not ended, cancelled request, cap reached, PR open")
  void refusals() {
    assertThat(queue.retryJob(JobId.of(999)).status()).isEqualTo(RetryResult.Status.NOT_FOUND);
    assertThat(queue.retryJob(JobId.of(999)).job()).isEmpty();

    Request first = running(NewRequest.tryWithArtifacts(42, "t1", "m0"));
    Job queuedJob = jobsOn(first, "x86").get(0);
    RetryResult notEnded = queue.retryJob(queuedJob.id());
    assertThat(notEnded.status()).isEqualTo(RetryResult.Status.NOT_RETRYABLE);
    assertThat(reload(queuedJob)).isEqualTo(queuedJob);

    Job failed = failFirstCompleteRest();
    store.completeIfDone(first.id());
    Request completed = reload(first);
    Request second = running(NewRequest.tryWithArtifacts(43, "t2", "m0")); // K = 1: the cap is reached
    RetryResult capped = queue.retryJob(failed.id());
    assertThat(capped.status()).isEqualTo(RetryResult.Status.CAP_REACHED);
    assertThat(reload(failed)).isEqualTo(failed);
    assertThat(reload(first)).isEqualTo(completed);

    queue.cancel(second.id(), "PR closed");
    Job cancelled = store.jobs(second.id()).get(0);
    assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
    RetryResult ofCancelled = queue.retryJob(cancelled.id());
    assertThat(ofCancelled.status()).isEqualTo(RetryResult.Status.REQUEST_CANCELLED);
    assertThat(reload(cancelled)).isEqualTo(cancelled);

    submit(NewRequest.tryWithArtifacts(42, "t3", "m0")); // PR 42 has an open try again
    RetryResult prOpen = queue.retryJob(failed.id());
    assertThat(prOpen.status()).isEqualTo(RetryResult.Status.PR_HAS_OPEN_REQUEST);
    assertThat(reload(failed)).isEqualTo(failed);
    assertThat(reload(first)).isEqualTo(completed);
  }

  @Test
  @DisplayName("a paused pool's collectors claim nothing, its leases run on, its jobs wait as paused; resuming claims")
  void pauseAndResume() {
    register("a1", "arm");
    Request request = running(NewRequest.tryWithArtifacts(42, "t1", "m0"));
    Claim held = claimOne("c1");

    assertThat(queue.setPoolPaused("x86", true)).isTrue();
    assertThat(queue.setPoolPaused("x86", true)).isFalse();
    assertThat(store.pausedPools()).containsExactly("x86");

    claimNothing("c1");
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START);
    assertThat(queue.heartbeat(held.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(queue.complete(held.lease()).status()).isEqualTo(LeaseStatus.OK);
    List<JobWait> waits = store.waitingJobs("x86", LEASE);
    assertThat(waits).hasSize(jobsOn(request, "x86").size() - 1);
    assertThat(waits).allSatisfy(w -> {
      assertThat(w.reason().kind()).isEqualTo(WaitReason.Kind.POOL_PAUSED);
      assertThat(w.reason().pool()).contains("x86");
      assertThat(w.reason().sentence()).contains("paused");
    });
    assertThat(store.waitingJobs("arm", LEASE)).noneMatch(w -> w.reason().kind() == WaitReason.Kind.POOL_PAUSED);
    claimOne("a1"); // another pool is not paused

    clock.advance(Duration.ofSeconds(2));
    claimNothing("c1");
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(2));

    assertThat(queue.setPoolPaused("x86", false)).isTrue();
    assertThat(queue.setPoolPaused("x86", false)).isFalse();
    assertThat(store.pausedPools()).isEmpty();
    claimOne("c1");
    assertThat(store.waitingJobs("x86", LEASE)).noneMatch(w -> w.reason().kind() == WaitReason.Kind.POOL_PAUSED);
  }

  @Test
  @DisplayName("a pool can be paused before it has jobs or collectors; a bad pool name is refused")
  void pauseUnknownPool() {
    assertThat(queue.setPoolPaused("gpu-b200", true)).isTrue();
    assertThat(store.pausedPools()).isEqualTo(Set.of("gpu-b200"));
    assertThatThrownBy(() -> store.setPoolPaused("bad\u0000pool", true))
        .isInstanceOf(InvalidQueueInputException.class);
  }

  @Test
  @DisplayName("the operator audit keeps each action with the store's instant, newest first")
  void audit() {
    assumeTrue(store instanceof OperatorAudit, "the store keeps no operator audit");
    OperatorAudit audit = (OperatorAudit) store;
    assertThat(audit.operatorActions(10)).isEmpty();
    OperatorAction first = audit.recordAction("alice", "pause", "pool x86", "paused");
    clock.advance(Duration.ofSeconds(1));
    OperatorAction second = audit.recordAction("token", "retry", "job 7", "not_found");
    assertThat(first.at()).isEqualTo(START);
    assertThat(second.at()).isEqualTo(START.plusSeconds(1));
    assertThat(second.id()).isGreaterThan(first.id());
    assertThat(audit.operatorActions(10)).containsExactly(second, first);
    assertThat(audit.operatorActions(1)).containsExactly(second);
    assertThatThrownBy(() -> audit.operatorActions(0)).isInstanceOf(InvalidQueueInputException.class);
    assertThatThrownBy(() -> audit.recordAction(" ", "x", "y", "z")).isInstanceOf(InvalidQueueInputException.class);
  }
}

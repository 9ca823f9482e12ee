package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.spi.AttachResult;
import dev.cipolicy.queue.spi.CancelResult;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for cancelling requests: queued jobs cancelled, leased ones flagged and cancelled on
 * their next fenced update or expiry.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Cancellation" group.
 */
abstract class CancellationContract extends KitGroup {

  private Request request;
  private Claim leased;

  CancellationContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void startAndLease() {
    register("c1", "x86");
    request = running(NewRequest.tryWithArtifacts(42, "t1", "m0"));
    leased = claimOne("c1");
  }

  @Test
  @DisplayName("cancelling cancels queued jobs and flags leased ones")
  void cancelJobs() {
    clock.advance(Duration.ofSeconds(3));
    CancelResult result = queue.cancel(request.id(), "PR closed");
    assertThat(result.status()).isEqualTo(CancelResult.Status.CANCELLED);
    assertThat(result.queuedJobsCancelled()).isEqualTo(3);
    assertThat(result.leasedJobsFlagged()).isEqualTo(1);
    Request cancelled = result.request().orElseThrow();
    assertThat(cancelled.state()).isEqualTo(RequestState.CANCELLED);
    assertThat(cancelled.cancelReason()).contains("PR closed");
    assertThat(cancelled.finishedAt()).contains(START.plusSeconds(3));
    Job flagged = reload(leased.job());
    assertThat(flagged.state()).isEqualTo(JobState.LEASED);
    assertThat(flagged.cancelRequested()).isTrue();
    assertThat(store.jobs(request.id())).filteredOn(j -> !j.id().equals(leased.job().id()))
        .allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.CANCELLED));
  }

  @Test
  @DisplayName("the collector learns of the cancellation on its next heartbeat; the job is cancelled")
  void heartbeatSaysCancelled() {
    queue.cancel(request.id(), "PR closed");
    LeaseResult beat = queue.heartbeat(leased.lease());
    assertThat(beat.status()).isEqualTo(LeaseStatus.CANCELLED);
    assertThat(beat.job().orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    assertThat(queue.complete(leased.lease()).status()).isEqualTo(LeaseStatus.STALE_LEASE);
  }

  @Test
  @DisplayName("completing a flagged job reports cancelled and records no success")
  void completeFlagged() {
    queue.cancel(request.id(), "superseded");
    LeaseResult done = queue.complete(leased.lease());
    assertThat(done.status()).isEqualTo(LeaseStatus.CANCELLED);
    assertThat(reload(leased.job()).state()).isEqualTo(JobState.CANCELLED);
  }

  @Test
  @DisplayName("a flagged job whose lease expires is cancelled, not rescued")
  void expiredFlagged() {
    queue.cancel(request.id(), "PR closed");
    clock.advance(LEASE);
    ExpiryResult expiry = store.expireLeases(2);
    assertThat(expiry.cancelled()).extracting(Job::id).containsExactly(leased.job().id());
    assertThat(expiry.rescued()).isEmpty();
  }

  @Test
  @DisplayName("a cancelled request frees its in-progress slot and its queued jobs are never claimed")
  void freesSlot() {
    Request next = submit(NewRequest.master("m1", null));
    queue.cancel(request.id(), "PR closed");
    assertThat(queue.tick().started()).extracting(s -> s.request().orElseThrow().id()).containsExactly(next.id());
    List<Claim> claims = queue.claim("c1", 10).claims();
    assertThat(claims).allSatisfy(c -> assertThat(c.job().requestId()).isEqualTo(next.id()));
  }

  @Test
  @DisplayName("cancelling twice, or an unknown request, changes nothing and says so")
  void twice() {
    queue.cancel(request.id(), "PR closed");
    Request cancelled = reload(request);
    assertThat(queue.cancel(request.id(), "again").status()).isEqualTo(CancelResult.Status.ALREADY_FINISHED);
    assertThat(reload(request)).isEqualTo(cancelled);
    assertThat(queue.cancel(RequestId.of(999), "x").status()).isEqualTo(CancelResult.Status.NOT_FOUND);
  }

  @Test
  @DisplayName("a waiting try request can be cancelled")
  void cancelWaiting() {
    Request waiting = submit(NewRequest.tryAwaitingArtifacts(77));
    assertThat(queue.cancel(waiting.id(), "superseded").request().orElseThrow().state())
        .isEqualTo(RequestState.CANCELLED);
    assertThat(queue.attachArtifacts(waiting.id(), "t77", "m0").status()).isEqualTo(AttachResult.Status.NOT_WAITING);
  }
}

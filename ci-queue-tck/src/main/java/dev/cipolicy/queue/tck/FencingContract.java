package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.Lease;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.LeaseResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for fenced updates: a wrong attempt or token, or an expired lease, changes nothing.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Fencing" group.
 */
abstract class FencingContract extends KitGroup {

  private Claim claim;

  FencingContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void claimAJob() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("m1", null));
    claim = claimOne("c1");
  }

  private void assertStale(Supplier<LeaseResult> update) {
    Job before = reload(claim.job());
    LeaseResult result = update.get();
    assertThat(result.status()).isEqualTo(LeaseStatus.STALE_LEASE);
    assertThat(result.job()).contains(before);
    assertThat(reload(claim.job())).isEqualTo(before);
  }

  @Test
  @DisplayName("a wrong token changes nothing for heartbeat, complete, fail and release")
  void wrongToken() {
    Lease l = claim.lease();
    LeaseRef bad = new LeaseRef(l.jobId(), l.attempt(), l.token() + 1);
    assertStale(() -> store.heartbeat(bad, LEASE));
    assertStale(() -> store.complete(bad));
    assertStale(() -> store.fail(bad, Failure.permanent("x"), 2));
    assertStale(() -> store.release(bad));
  }

  @Test
  @DisplayName("a wrong attempt with the right token changes nothing")
  void wrongAttempt() {
    Lease l = claim.lease();
    LeaseRef bad = new LeaseRef(l.jobId(), l.attempt() + 1, l.token());
    assertStale(() -> store.complete(bad));
    assertStale(() -> store.heartbeat(bad, LEASE));
  }

  @Test
  @DisplayName("completing twice: the second completion is stale")
  void completeTwice() {
    assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertStale(() -> queue.complete(claim.lease()));
    assertStale(() -> queue.fail(claim.lease(), Failure.permanent("late")));
  }

  @Test
  @DisplayName("an expired lease is stale even before anyone reclaims the job")
  void expiredBeforeReclaim() {
    clock.advance(LEASE);
    assertStale(() -> queue.heartbeat(claim.lease()));
    assertStale(() -> queue.complete(claim.lease()));
    assertThat(reload(claim.job()).state()).isEqualTo(JobState.LEASED);
  }

  @Test
  @DisplayName("after the job is reclaimed, the old holder's result is refused and the new holder's kept")
  void staleAfterReclaim() {
    clock.advance(LEASE.plusSeconds(1));
    Claim second = queue.claim("c1").claims().get(0);
    assertThat(second.job().id()).isEqualTo(claim.job().id());
    assertThat(second.lease().attempt()).isEqualTo(2);
    assertStale(() -> queue.complete(claim.lease()));
    assertThat(queue.complete(second.lease()).status()).isEqualTo(LeaseStatus.OK);
  }

  @Test
  @DisplayName("an unknown job id is not found")
  void notFound() {
    LeaseResult result = store.complete(new LeaseRef(JobId.of(999_999), 1, 1));
    assertThat(result.status()).isEqualTo(LeaseStatus.NOT_FOUND);
    assertThat(result.job()).isEmpty();
  }
}

package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's liveness scenario: a dead collector delays work by one lease time at most.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Liveness" group.
 */
abstract class LivenessContract extends KitGroup {

  LivenessContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("a pool member dies holding a job; the request completes within one lease time plus a claim"
      + " interval")
  void deadCollector() {
    Duration claimInterval = Duration.ofSeconds(10);
    register("c1", "x86");
    register("c2", "x86");
    Request r = running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    Instant died = clock.instant();
    Claim held = claimOne("c1");
    assertThat(held.job().spec().collectorTag()).isEqualTo("x86");
    Instant completedAt = null;
    for (int step = 0; step < 100 && completedAt == null; step++) {
      clock.advance(claimInterval);
      queue.collectorHeartbeat("c2");
      for (Claim claim : queue.claim("c2", 10).claims()) {
        assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
      }
      if (!queue.tick().completed().isEmpty()) {
        completedAt = clock.instant();
      }
    }
    assertThat(completedAt).as("the request completes").isNotNull();
    assertThat(Duration.between(died, completedAt)).isLessThanOrEqualTo(LEASE.plus(claimInterval));
    assertThat(reload(r).outcome()).contains(Outcome.SUCCESS);
    assertThat(reload(held.job()).crashRescues()).isEqualTo(1);
    assertThat(reload(held.job()).attempt()).isEqualTo(2);
  }
}

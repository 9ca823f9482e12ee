package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for affinity to a job's previous collector and the fallback to the rest of its pool.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Affinity and pools" group.
 */
abstract class AffinityContract extends KitGroup {

  private Claim claim;

  AffinityContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void leaseAndLoseAJob() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("m1", null).withBenchmarkGroups("g"));
    claim = claimOne("c1");
    queue.fail(claim.lease(), Failure.transientFailure("network"));
  }

  @Test
  @DisplayName("a requeued job waits for its previous collector while that one is live")
  void prefersPrevious() {
    clock.advance(LEASE.minusSeconds(1));
    claimNothing("c2");
    assertThat(claimOne("c1").job().id()).isEqualTo(claim.job().id());
  }

  @Test
  @DisplayName("the wait reason of a requeued job names the live previous collector it is held for, and no longer"
      + " once that one is gone")
  void waitReasonNamesThePreviousCollector() {
    clock.advance(LEASE.minusSeconds(1));
    queue.collectorHeartbeat("c2");
    WaitReason held = store.waitingJobs("x86", LEASE).get(0).reason();
    assertThat(held.kind()).isEqualTo(WaitReason.Kind.CLAIMABLE);
    assertThat(held.host()).contains("c1");
    assertThat(held.liveCollectors()).hasValue(2);
    claimNothing("c2");
    clock.advance(Duration.ofSeconds(2));
    WaitReason free = store.waitingJobs("x86", LEASE).get(0).reason();
    assertThat(free.host()).isEmpty();
    assertThat(free.liveCollectors()).hasValue(1);
    assertThat(claimOne("c2").job().id()).isEqualTo(claim.job().id());
  }

  @Test
  @DisplayName("a GPU job requeued after a transient failure on one host is taken at once by another live host")
  void gpuJobsIgnoreAffinity() {
    assertThat(queue.registerHost("h1", "gpu", Devices.count(2)).status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(queue.registerHost("h2", "gpu", Devices.count(2)).status()).isEqualTo(RegisterResult.Status.REGISTERED);
    Request r = submit(NewRequest.master("g1", null).withPr(7).withBenchmarkGroups("t"));
    store.startRequest(StartCommand.builder().requestId(r.id()).jobs(List.of(JobSpec.required("t", "gpu")
        .withGpus(2, Duration.ZERO))).maxInProgress(5).build());
    Claim first = claimOne("h1");
    queue.fail(first.lease(), Failure.transientFailure("flaky"));
    Claim again = claimOne("h2");
    assertThat(again.job().id()).isEqualTo(first.job().id());
    assertThat(again.lease().devices()).containsExactly(0, 1);
  }

  @Test
  @DisplayName("another member of the pool takes it once the previous collector's heartbeat expired")
  void poolFallback() {
    clock.advance(LEASE);
    assertThat(claimOne("c2").job().id()).isEqualTo(claim.job().id());
  }

  @Test
  @DisplayName("a heartbeat of the previous collector keeps the job reserved for it")
  void heartbeatKeepsAffinity() {
    clock.advance(LEASE.minusSeconds(1));
    assertThat(queue.collectorHeartbeat("c1").status()).isEqualTo(CollectorResult.Status.OK);
    clock.advance(Duration.ofSeconds(30));
    claimNothing("c2");
  }

  @Test
  @DisplayName("another member takes it at once when the previous collector is deactivated")
  void deactivatedPrevious() {
    queue.deactivate("c1");
    assertThat(claimOne("c2").job().id()).isEqualTo(claim.job().id());
  }

  @Test
  @DisplayName("a collector takes its own requeued jobs before older jobs")
  void ownFirst() {
    Request second = submit(NewRequest.master("m2", null).withPr(2).withBenchmarkGroups("h"));
    store.startRequest(StartCommand.builder().requestId(second.id()).jobs(List.of(JobSpec.required("h", "x86")))
        .maxInProgress(5).build());
    Claim newer = claimOne("c2");
    assertThat(newer.job().requestId()).isEqualTo(second.id());
    queue.fail(newer.lease(), Failure.transientFailure("network"));
    Claim older = claimOne("c1");
    assertThat(older.job().id()).isEqualTo(claim.job().id());
    queue.release(older.lease());
    ClaimResult both = queue.claim("c2", 2);
    assertThat(both.claims()).extracting(c -> c.job().id()).containsExactly(newer.job().id(), older.job().id());
    assertThat(newer.job().id()).isGreaterThan(older.job().id());
  }

  @Test
  @DisplayName("a collector of another tag never takes the job")
  void otherTag() {
    register("a1", "arm");
    clock.advance(LEASE.multipliedBy(2));
    ClaimResult arm = queue.claim("a1", 10);
    assertThat(arm.claims()).extracting(c -> c.job().spec().collectorTag()).containsOnly("arm");
  }
}

package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.CollectorStatus;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.RegisterResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for collectors: unique registration, heartbeats, online and offline status,
 * deactivation.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Collectors" group.
 */
abstract class CollectorsContract extends KitGroup {

  CollectorsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("registering is unique by name: the same registration again is a no-op")
  void unique() {
    RegisterResult first = queue.registerCollector("c1", "x86", true);
    assertThat(first.status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(first.collector().registeredAt()).isEqualTo(START);
    clock.advance(Duration.ofMinutes(1));
    RegisterResult again = queue.registerCollector("c1", "x86", false);
    assertThat(again.status()).isEqualTo(RegisterResult.Status.ALREADY_REGISTERED);
    assertThat(again.collector()).isEqualTo(first.collector());
    assertThat(store.collector("c1")).contains(first.collector());
  }

  @Test
  @DisplayName("a taken name with another tag is refused")
  void nameTaken() {
    register("c1", "x86");
    RegisterResult other = queue.registerCollector("c1", "arm", true);
    assertThat(other.status()).isEqualTo(RegisterResult.Status.NAME_TAKEN);
    assertThat(store.collector("c1").orElseThrow().tag()).isEqualTo("x86");
  }

  @Test
  @DisplayName("a collector is online while its heartbeat is fresh and offline after the configured age")
  void offline() {
    register("c1", "x86");
    register("c2", "x86");
    clock.advance(LEASE.minusSeconds(1));
    queue.collectorHeartbeat("c2");
    clock.advance(Duration.ofSeconds(1));
    List<CollectorStatus> statuses = queue.collectors();
    assertThat(statuses).extracting(s -> s.collector().name()).containsExactly("c1", "c2");
    assertThat(statuses.get(0).state()).isEqualTo(CollectorStatus.State.OFFLINE);
    assertThat(statuses.get(0).heartbeatAge()).isEqualTo(LEASE);
    assertThat(statuses.get(1).state()).isEqualTo(CollectorStatus.State.ONLINE);
    assertThat(queue.collectorHeartbeat("ghost").status()).isEqualTo(CollectorResult.Status.NOT_FOUND);
  }

  @Test
  @DisplayName("claims and job updates count as heartbeats")
  void implicitHeartbeats() {
    register("c1", "x86");
    running(NewRequest.master("m1", null));
    clock.advance(Duration.ofSeconds(10));
    Claim claim = claimOne("c1");
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(10));
    clock.advance(Duration.ofSeconds(10));
    queue.heartbeat(claim.lease());
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(20));
    clock.advance(Duration.ofSeconds(10));
    queue.complete(claim.lease());
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plusSeconds(30));
  }

  @Test
  @DisplayName("a deactivated collector claims nothing, keeps its leases, and claims again once activated")
  void deactivate() {
    register("c1", "x86");
    running(NewRequest.master("m1", null));
    Claim claim = claimOne("c1");
    assertThat(queue.deactivate("c1").status()).isEqualTo(CollectorResult.Status.OK);
    assertThat(queue.deactivate("c1").status()).isEqualTo(CollectorResult.Status.UNCHANGED);
    assertThat(queue.collectors().get(0).state()).isEqualTo(CollectorStatus.State.INACTIVE);
    assertThat(queue.claim("c1").status()).isEqualTo(ClaimResult.Status.INACTIVE_COLLECTOR);
    assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(queue.activate("c1").status()).isEqualTo(CollectorResult.Status.OK);
    claimOne("c1");
    assertThat(queue.activate("ghost").status()).isEqualTo(CollectorResult.Status.NOT_FOUND);
  }

  @Test
  @DisplayName("heartbeat instants only move forward")
  void monotonic() {
    register("c1", "x86");
    clock.advance(Duration.ofMinutes(5));
    queue.collectorHeartbeat("c1");
    store.collectorHeartbeat("c1");
    assertThat(store.collector("c1").orElseThrow().lastHeartbeatAt()).isEqualTo(START.plus(Duration.ofMinutes(5)));
  }
}

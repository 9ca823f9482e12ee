package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.CollectorResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.RetireResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for a host whose inventory changes and for retiring a collector: registering again with
 * another inventory takes it at once unless a live lease holds a device it removes, and keeps it pending until
 * then (no new lease on a removed device, no use of an added one); the claim after that lease ends takes it. A
 * retired collector claims nothing more, is listed while it holds a live lease and is gone after; its name may
 * then be registered afresh.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Inventory and retirement" group.
 */
abstract class InventoryContract extends GpuKitGroup {

  InventoryContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  private RegisterResult again(String name, Devices devices) {
    return store.registerCollector(name, "gpu", true, devices);
  }

  private Collector collector(String name) {
    return store.collector(name).orElseThrow();
  }

  @Test
  @DisplayName("the same inventory again changes nothing; another one is taken at once when no lease holds a removed"
      + " device, and its added devices are used")
  void inventoryTakenAtOnce() {
    host("h0", Devices.count(4));
    assertThat(again("h0", Devices.count(4)).status()).isEqualTo(RegisterResult.Status.ALREADY_REGISTERED);
    List<Job> jobs = gpuJobs(2, 4);
    assertThat(claimDevices("h0", jobs.get(0))).containsExactly(0, 1);
    // Device 3 goes, 4 to 7 come; the live lease holds only kept devices.
    RegisterResult r = again("h0", Devices.grouped(List.of(List.of(0, 1, 2), List.of(4, 5, 6, 7))));
    assertThat(r.status()).isEqualTo(RegisterResult.Status.INVENTORY_UPDATED);
    assertThat(r.collector().devices().indices()).containsExactly(0, 1, 2, 4, 5, 6, 7);
    assertThat(r.collector().pendingDevices()).isEmpty();
    assertThat(collector("h0")).isEqualTo(r.collector());
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(4, 5, 6, 7);
    assertThat(again("h0", Devices.grouped(List.of(List.of(0, 1, 2), List.of(4, 5, 6, 7)))).status())
        .isEqualTo(RegisterResult.Status.ALREADY_REGISTERED);
  }

  @Test
  @DisplayName("regrouping the same devices is taken at once, even while every device is held")
  void regroupingTakenAtOnce() {
    host("h0", Devices.count(4));
    List<Job> jobs = gpuJobs(4);
    claimDevices("h0", jobs.get(0));
    Devices grouped = Devices.grouped(List.of(List.of(0, 1), List.of(2, 3)));
    RegisterResult r = again("h0", grouped);
    assertThat(r.status()).isEqualTo(RegisterResult.Status.INVENTORY_UPDATED);
    assertThat(collector("h0").devices()).isEqualTo(grouped);
  }

  @Test
  @DisplayName("while a live lease holds a removed device the inventory is pending: no lease on a removed or added"
      + " device, and the claim after that lease ends takes it")
  void pendingUntilTheLeaseEnds() {
    host("h0", Devices.count(4));
    List<Job> first = gpuJobs(2);
    assertThat(claimDevices("h0", first.get(0))).containsExactly(0, 1);
    // Device 0 (held) goes, 4 comes.
    Devices next = Devices.grouped(List.of(List.of(1, 2, 3, 4)));
    RegisterResult r = again("h0", next);
    assertThat(r.status()).isEqualTo(RegisterResult.Status.INVENTORY_PENDING);
    assertThat(r.collector().devices()).isEqualTo(Devices.count(4));
    assertThat(r.collector().pendingDevices()).contains(next);
    assertThat(collector("h0")).isEqualTo(r.collector());
    assertThat(again("h0", next).status()).isEqualTo(RegisterResult.Status.INVENTORY_PENDING);

    PoolView view = store.pool("gpu", LEASE);
    assertThat(view.hosts()).extracting(DevicePlacement.Host::devices)
        .containsExactly(new Devices(List.of(1, 2, 3), List.of()));
    assertThat(view.hosts().get(0).free()).isEqualTo(2);

    List<Job> more = gpuJobs(2, 1);
    assertThat(claimDevices("h0", more.get(0))).containsExactly(2, 3);
    // Free are 0 (removed) and 4 (added, not taken): neither is used.
    assertThat(claim("h0", 1)).isEmpty();
    assertThat(collector("h0").pendingDevices()).contains(next);

    complete(first.get(0));
    assertThat(collector("h0").pendingDevices()).as("taken at the next claim").contains(next);
    List<Claim> claimed = claim("h0", 1);
    assertThat(collector("h0").devices()).isEqualTo(next);
    assertThat(collector("h0").pendingDevices()).isEmpty();
    assertThat(claimed).hasSize(1);
    assertThat(claimed.get(0).job().id()).isEqualTo(more.get(1).id());
    assertThat(claimed.get(0).lease().devices()).containsExactly(1);
    List<Job> last = gpuJobs(1);
    assertThat(claimDevices("h0", last.get(0))).as("the added device").containsExactly(4);
  }

  @Test
  @DisplayName("a pending inventory is taken once the lease holding a removed device expires, fails or is released")
  void pendingTakenWhenTheLeaseExpiresFailsOrIsReleased() {
    host("h0", Devices.count(2));
    List<Job> jobs = gpuJobs(1, 1);
    claimDevices("h0", jobs.get(0));
    claimDevices("h0", jobs.get(1));
    assertThat(again("h0", Devices.count(1)).status()).isEqualTo(RegisterResult.Status.INVENTORY_PENDING);
    // Device 0 is kept; device 1 goes: releasing the lease on 0 changes nothing but frees 0 again.
    assertThat(store.release(ref(this, jobs.get(0))).status()).isEqualTo(LeaseStatus.OK);
    assertThat(claimDevices("h0", jobs.get(0))).containsExactly(0);
    assertThat(collector("h0").pendingDevices()).contains(Devices.count(1));
    // The lease on device 1 fails (transient): the next claim takes the inventory, and its job waits for 0.
    assertThat(store.fail(ref(this, jobs.get(1)), Failure.transientFailure("flaky"), 5).status())
        .isEqualTo(LeaseStatus.OK);
    assertThat(claim("h0", 2)).isEmpty();
    assertThat(collector("h0").devices()).isEqualTo(Devices.count(1));
    assertThat(collector("h0").pendingDevices()).isEmpty();
    complete(jobs.get(0));
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(0);

    // Expiry: device 1 is taken away while a 2-GPU lease holds it, and that lease expires.
    freshStore();
    host("h1", Devices.count(2));
    List<Job> two = gpuJobs(2);
    claimDevices("h1", two.get(0));
    assertThat(again("h1", Devices.count(1)).status()).isEqualTo(RegisterResult.Status.INVENTORY_PENDING);
    clock.advance(LEASE);
    assertThat(collector("h1").pendingDevices()).isPresent();
    claim("h1", 1);
    assertThat(collector("h1").devices()).isEqualTo(Devices.count(1));
    assertThat(reload(two.get(0)).state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  @DisplayName("registering the taken inventory while another is pending drops the pending one; another tag is"
      + " refused")
  void pendingReplacedOrDropped() {
    host("h0", Devices.count(2));
    List<Job> jobs = gpuJobs(2);
    claimDevices("h0", jobs.get(0));
    assertThat(again("h0", Devices.count(1)).status()).isEqualTo(RegisterResult.Status.INVENTORY_PENDING);
    RegisterResult back = again("h0", Devices.count(2));
    assertThat(back.status()).isEqualTo(RegisterResult.Status.INVENTORY_UPDATED);
    assertThat(back.collector().pendingDevices()).isEmpty();
    assertThat(again("h0", Devices.count(2)).status()).isEqualTo(RegisterResult.Status.ALREADY_REGISTERED);
    RegisterResult other = store.registerCollector("h0", "b200", true, Devices.count(8));
    assertThat(other.status()).isEqualTo(RegisterResult.Status.NAME_TAKEN);
    assertThat(other.collector()).isEqualTo(collector("h0"));
    assertThat(collector("h0").tag()).isEqualTo("gpu");
  }

  @Test
  @DisplayName("a collector without live leases is retired at once: gone from every view, and its name is free")
  void retiredAtOnce() {
    host("h0", Devices.count(2));
    host("h1", Devices.count(2));
    assertThat(store.retireCollector("h0").status()).isEqualTo(RetireResult.Status.RETIRED);
    assertThat(store.collector("h0")).isEmpty();
    assertThat(store.collectors()).extracting(Collector::name).containsExactly("h1");
    assertThat(store.pool("gpu", LEASE).hosts()).extracting(DevicePlacement.Host::name).containsExactly("h1");
    assertThat(store.pool("gpu", LEASE).liveCollectors()).containsExactly("h1");
    List<Job> jobs = gpuJobs(1);
    ClaimResult claim = store.claim(ClaimCommand.builder().collector("h0").leaseDuration(LEASE).build());
    assertThat(claim.status()).isEqualTo(ClaimResult.Status.UNKNOWN_COLLECTOR);
    assertThat(claim.claims()).isEmpty();
    assertThat(store.collectorHeartbeat("h0").status()).isEqualTo(CollectorResult.Status.NOT_FOUND);
    assertThat(store.setCollectorActive("h0", true).status()).isEqualTo(CollectorResult.Status.NOT_FOUND);
    assertThat(store.retireCollector("h0").status()).isEqualTo(RetireResult.Status.NOT_FOUND);
    assertThat(store.retireCollector("nobody")).isEqualTo(new RetireResult(RetireResult.Status.NOT_FOUND,
        Optional.empty()));

    clock.advance(Duration.ofSeconds(5));
    RegisterResult fresh = store.registerCollector("h0", "b200", true, Devices.count(8));
    assertThat(fresh.status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(fresh.collector()).isEqualTo(Collector.builder().name("h0").tag("b200").active(true)
        .registeredAt(store.now()).lastHeartbeatAt(store.now()).devices(Devices.count(8)).build());
    assertThat(collector("h0")).isEqualTo(fresh.collector());
    assertThat(claimDevices("h1", jobs.get(0))).containsExactly(0);
  }

  @Test
  @DisplayName("a collector retired with a live lease claims nothing more, lets the lease end, and is gone after")
  void retiringWithALiveLease() {
    host("h0", Devices.count(2));
    List<Job> jobs = gpuJobs(1, 1);
    claimDevices("h0", jobs.get(0));
    RetireResult retired = store.retireCollector("h0");
    assertThat(retired.status()).isEqualTo(RetireResult.Status.RETIRING);
    Collector retiring = retired.collector().orElseThrow();
    assertThat(retiring.retiring()).isTrue();
    assertThat(retiring.active()).isFalse();
    assertThat(collector("h0")).isEqualTo(retiring);
    assertThat(store.collectors()).containsExactly(retiring);
    assertThat(store.pool("gpu", LEASE).hosts()).isEmpty();
    ClaimResult claim = store.claim(ClaimCommand.builder().collector("h0").leaseDuration(LEASE).build());
    assertThat(claim.status()).isEqualTo(ClaimResult.Status.INACTIVE_COLLECTOR);
    assertThat(claim.claims()).isEmpty();
    assertThat(reload(jobs.get(1)).state()).isEqualTo(JobState.QUEUED);
    assertThat(store.setCollectorActive("h0", true).status()).isEqualTo(CollectorResult.Status.RETIRING);
    assertThat(store.retireCollector("h0").status()).isEqualTo(RetireResult.Status.RETIRING);
    assertThat(again("h0", Devices.count(2)).status()).isEqualTo(RegisterResult.Status.RETIRING);
    assertThat(store.heartbeat(ref(this, jobs.get(0)), LEASE).status()).isEqualTo(LeaseStatus.OK);

    complete(jobs.get(0));
    assertThat(store.collector("h0")).isEmpty();
    assertThat(store.collectors()).isEmpty();
    assertThat(store.retireCollector("h0").status()).isEqualTo(RetireResult.Status.NOT_FOUND);
    assertThat(again("h0", Devices.count(4)).status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(collector("h0").retiring()).isFalse();
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(0);
  }

  @Test
  @DisplayName("a retiring collector is gone once its last live lease expires; its requeued job runs elsewhere")
  void retiringUntilTheLeaseExpires() {
    register("c1", "x86");
    register("c2", "x86");
    running(NewRequest.master("r1", null));
    Claim held = claimOne("c1");
    assertThat(queue.retireCollector("c1").status()).isEqualTo(RetireResult.Status.RETIRING);
    clock.advance(LEASE.minusSeconds(1));
    assertThat(store.collector("c1")).isPresent();
    queue.collectorHeartbeat("c2");
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.collector("c1")).isEmpty();
    assertThat(store.collectors()).extracting(Collector::name).containsExactly("c2");
    assertThat(store.heartbeat(LeaseRef.of(held.lease()), LEASE).status()).isEqualTo(LeaseStatus.STALE_LEASE);
    List<Claim> rescued = queue.claim("c2", 2).claims();
    assertThat(rescued).extracting(c -> c.job().id()).contains(held.job().id());
  }
}

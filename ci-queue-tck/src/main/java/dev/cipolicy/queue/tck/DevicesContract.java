package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobState;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.ClaimResult;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.RegisterResult;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for GPU budgets: hosts advertise devices, jobs declare how many they need, a claim
 * leases a set of free devices (inside one group and least fragmenting when it can), no device is held by two
 * live leases, and every way a lease ends frees its devices. Jobs that need no GPU behave as before.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Devices" group.
 */
abstract class DevicesContract extends GpuKitGroup {

  DevicesContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("2-, 4- and 8-GPU jobs share one 8-GPU host without sharing a device")
  void mixedBudgetsShareAHost() {
    host("h0", Devices.count(8));
    List<Job> jobs = gpuJobs(2, 4, 2, 8);
    assertThat(claimDevices("h0", jobs.get(0))).containsExactly(0, 1);
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(2, 3, 4, 5);
    assertThat(claimDevices("h0", jobs.get(2))).containsExactly(6, 7);
    assertThat(claim("h0", 5)).isEmpty();
    assertThat(reload(jobs.get(3)).state()).isEqualTo(JobState.QUEUED);
    for (int i = 0; i < 3; i++) {
      Job leased = reload(jobs.get(i));
      assertThat(store.complete(LeaseRef.of(leased.lease().orElseThrow())).status()).isEqualTo(LeaseStatus.OK);
    }
    assertThat(claimDevices("h0", jobs.get(3))).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  @DisplayName("a job's budget, estimate, cadence and timeout are kept from its start to its claim and its end")
  void specKeptWhole() {
    host("h0", Devices.count(8));
    host("h1", Devices.count(8));
    Request r = submit(NewRequest.master("spec-" + System.identityHashCode(this), null));
    JobSpec limited = JobSpec.required("limited", "gpu").withGpus(4, Duration.ofMinutes(20).plusNanos(7_000))
        .withCadence("nightly").withTimeout(Duration.ofMinutes(45).plusNanos(3_000));
    JobSpec unlimited = JobSpec.required("unlimited", "gpu").withGpus(2, Duration.ofMinutes(5));
    StartResult started = store.startRequest(StartCommand.builder().requestId(r.id()).jobs(List.of(limited, unlimited))
        .maxInProgress(100_000).build());
    assertThat(started.status()).isEqualTo(StartResult.Status.STARTED);
    assertThat(started.jobs()).extracting(Job::spec).containsExactly(limited, unlimited);
    assertThat(reload(started.jobs().get(0)).spec().timeout()).isEqualTo(Duration.ofMinutes(45).plusNanos(3_000));
    assertThat(reload(started.jobs().get(1)).spec().hasTimeout()).isFalse();
    List<Claim> claims = claim("h0", 2);
    assertThat(claims).extracting(c -> c.job().spec()).containsExactly(limited, unlimited);
    complete(claims.get(0).job());
    assertThat(reload(claims.get(0).job()).spec()).isEqualTo(limited);
  }

  @Test
  @DisplayName("one claim with a limit takes several GPU jobs, each on its own devices")
  void severalInOneClaim() {
    host("h0", Devices.count(8));
    List<Job> jobs = gpuJobs(4, 2, 2, 2);
    List<Claim> claims = claim("h0", 10);
    assertThat(claims).extracting(c -> c.job().id()).containsExactly(jobs.get(0).id(), jobs.get(1).id(),
        jobs.get(2).id());
    assertThat(claims).extracting(c -> c.lease().devices()).containsExactly(List.of(0, 1, 2, 3), List.of(4, 5),
        List.of(6, 7));
  }

  @Test
  @DisplayName("a job fits inside one group when it can, the group with the fewest free devices first")
  void groupsPreferred() {
    host("h0", Devices.grouped(List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7))));
    List<Job> jobs = gpuJobs(2, 4, 2, 2);
    assertThat(claimDevices("h0", jobs.get(0))).containsExactly(0, 1);
    // Group 0 has two free devices left: the 4-GPU job goes to group 1 whole, not across 2, 3, 4, 5.
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(4, 5, 6, 7);
    assertThat(claimDevices("h0", jobs.get(2))).containsExactly(2, 3);
    assertThat(claim("h0", 1)).isEmpty();
    complete(jobs.get(0));
    complete(jobs.get(1));
    // Groups 0 (two free) and 1 (four free) both fit: the fuller group 0 takes the job.
    assertThat(claimDevices("h0", jobs.get(3))).containsExactly(0, 1);
  }

  @Test
  @DisplayName("a job that fits no group alone spans the groups with the most free devices")
  void spanningGroups() {
    host("h0", Devices.grouped(List.of(List.of(0, 1), List.of(2, 3), List.of(4, 5, 6, 7))));
    List<Job> jobs = gpuJobs(1, 6);
    assertThat(claimDevices("h0", jobs.get(0))).containsExactly(0);
    // Free: 1 of group 0, 2 of group 1, 4 of group 2. No group has 6: groups 2 and 1 whole, not device 1.
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(2, 3, 4, 5, 6, 7);
  }

  @Test
  @DisplayName("a claim takes the shortest run of free devices that fits, fragmenting the host least")
  void leastFragmentation() {
    host("h0", Devices.count(8));
    List<Job> jobs = gpuJobs(3, 2, 1, 2, 1, 2);
    assertThat(claimDevices("h0", jobs.get(0))).containsExactly(0, 1, 2);
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(3, 4);
    assertThat(claimDevices("h0", jobs.get(2))).containsExactly(5);
    assertThat(claimDevices("h0", jobs.get(3))).containsExactly(6, 7);
    complete(jobs.get(0));
    complete(jobs.get(2));
    // Free: 0, 1, 2 and 5. The 1-GPU job takes the lone device 5 and keeps the run 0-2 whole.
    assertThat(claimDevices("h0", jobs.get(4))).containsExactly(5);
    assertThat(claimDevices("h0", jobs.get(5))).containsExactly(0, 1);
  }

  @Test
  @DisplayName("complete, permanent and transient failure, release, cancellation and lease expiry free the devices")
  void everyEndFreesTheDevices() {
    List<BiConsumer<GpuKitGroup, Job>> ends = List.of(
        (t, j) -> t.complete(j),
        (t, j) -> assertThat(t.store.fail(ref(t, j), Failure.permanent("boom"), 2).status())
            .isEqualTo(LeaseStatus.OK),
        (t, j) -> assertThat(t.store.fail(ref(t, j), Failure.transientFailure("flaky"), 2).status())
            .isEqualTo(LeaseStatus.OK),
        (t, j) -> assertThat(t.store.release(ref(t, j)).status()).isEqualTo(LeaseStatus.OK),
        (t, j) -> {
          t.store.cancel(t.reload(j).requestId(), "closed");
          assertThat(t.store.heartbeat(ref(t, j), LEASE).status()).isEqualTo(LeaseStatus.CANCELLED);
        },
        (t, j) -> {
          t.clock.advance(LEASE.plusSeconds(1));
          t.store.collectorHeartbeat("h0");
          t.store.expireLeases(2);
        });
    for (int i = 0; i < ends.size(); i++) {
      freshStore();
      host("h0", Devices.count(8));
      Job big = gpuJobs(8).get(0);
      Job other = gpuJobs(8).get(0);
      assertThat(claimDevices("h0", big)).hasSize(8);
      assertThat(claim("h0", 1)).as("path %s: no device is free", i).isEmpty();
      ends.get(i).accept(this, big);
      assertThat(reload(big).lease()).isEmpty();
      List<Claim> next = claim("h0", 1);
      assertThat(next).as("path %s frees the devices", i).hasSize(1);
      assertThat(next.get(0).lease().devices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
      assertThat(next.get(0).job().id()).isIn(big.id(), other.id());
    }
  }

  @Test
  @DisplayName("a job larger than every host is never claimed and does not hold back smaller ones")
  void tooLargeNeverClaims() {
    host("h0", Devices.count(8));
    List<Job> jobs = gpuJobs(16, 2);
    assertThat(claimDevices("h0", jobs.get(1))).containsExactly(0, 1);
    assertThat(claim("h0", 4)).isEmpty();
    assertThat(reload(jobs.get(0)).state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  @DisplayName("jobs without GPUs are claimed as before, by any collector of the tag, after a host's GPU jobs")
  void cpuJobsUnaffected() {
    host("h0", Devices.count(8));
    assertThat(store.registerCollector("cpu", "gpu", true).status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(store.collector("cpu").orElseThrow().devices()).isEqualTo(Devices.none());
    Request r = submit(NewRequest.master("mixed", null));
    List<JobSpec> specs = List.of(JobSpec.required("cpu1", "gpu"), JobSpec.required("g8", "gpu").withGpus(8,
        Duration.ofHours(1)), JobSpec.required("cpu2", "gpu"));
    List<Job> jobs = store.startRequest(StartCommand.builder().requestId(r.id()).jobs(specs).maxInProgress(100)
        .build()).jobs();
    // A collector without devices never takes the GPU job.
    List<Claim> cpu = claim("cpu", 5);
    assertThat(cpu).extracting(c -> c.job().id()).containsExactly(jobs.get(0).id(), jobs.get(2).id());
    assertThat(cpu).allSatisfy(c -> assertThat(c.lease().devices()).isEmpty());
    assertThat(reload(jobs.get(1)).state()).isEqualTo(JobState.QUEUED);
    List<Claim> gpu = claim("h0", 5);
    assertThat(gpu).extracting(c -> c.job().id()).containsExactly(jobs.get(1).id());
    // A host takes its GPU jobs first, then jobs that need none.
    Request r2 = submit(NewRequest.master("mixed2", null));
    List<Job> more = store.startRequest(StartCommand.builder().requestId(r2.id())
        .jobs(List.of(JobSpec.required("cpu3", "gpu"), JobSpec.required("g2", "gpu").withGpus(2, Duration.ofHours(1))))
        .maxInProgress(100).build()).jobs();
    complete(jobs.get(1));
    List<Claim> both = claim("h0", 5);
    assertThat(both).extracting(c -> c.job().id()).containsExactly(more.get(1).id(), more.get(0).id());
    assertThat(both).extracting(c -> c.lease().devices()).containsExactly(List.of(0, 1), List.of());
  }

  @Test
  @DisplayName("a job spec keeps its GPU budget and estimate; a host keeps its devices")
  void valuesRoundTrip() {
    host("h0", Devices.grouped(List.of(List.of(4, 5), List.of(0, 1))));
    Job j = gpuJobs(Duration.ofMinutes(42), 2).get(0);
    assertThat(reload(j).spec().gpus()).isEqualTo(2);
    assertThat(reload(j).spec().estimate()).isEqualTo(Duration.ofMinutes(42));
    assertThat(store.collector("h0").orElseThrow().devices().groups())
        .containsExactly(List.of(0, 1), List.of(4, 5));
    assertThat(store.collectors()).singleElement().extracting(c -> c.devices().indices())
        .isEqualTo(List.of(0, 1, 4, 5));
    assertThat(claimDevices("h0", j)).containsExactly(0, 1);
    assertThat(store.jobs(j.requestId())).singleElement().isEqualTo(reload(j));
  }

}

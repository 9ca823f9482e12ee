package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
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

/**
 * The base of the kit's groups on GPU budgets: hosts of tag {@code gpu} with devices, requests whose jobs need
 * GPUs, claims that check after each call that no device is held by two live leases.
 */
abstract class GpuKitGroup extends KitGroup {

  private int requests;

  GpuKitGroup(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  /** Registers an active collector of tag {@code gpu} with the given devices. */
  final void host(String name, Devices devices) {
    RegisterResult r = store.registerCollector(name, "gpu", true, devices);
    assertThat(r.status()).isEqualTo(RegisterResult.Status.REGISTERED);
    assertThat(r.collector().devices()).isEqualTo(devices);
  }

  /** Starts a new request whose jobs, on tag {@code gpu}, need the given GPU counts, with an estimate. */
  final List<Job> gpuJobs(Duration estimate, int... gpus) {
    return gpuJobs("", estimate, gpus);
  }

  /** Like {@link #gpuJobs(Duration, int...)}, the jobs of the given cadence ("" for none). */
  final List<Job> gpuJobs(String cadence, Duration estimate, int... gpus) {
    Request r = submit(NewRequest.master("gpu-" + ++requests, null));
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < gpus.length; i++) {
      specs.add(JobSpec.required("g" + i, "gpu").withGpus(gpus[i], estimate).withCadence(cadence));
    }
    StartResult started = store.startRequest(StartCommand.builder().requestId(r.id()).jobs(specs)
        .maxInProgress(100_000).build());
    assertThat(started.status()).isEqualTo(StartResult.Status.STARTED);
    return started.jobs();
  }

  /** Like {@link #gpuJobs(Duration, int...)} with a one-hour estimate. */
  final List<Job> gpuJobs(int... gpus) {
    return gpuJobs(Duration.ofHours(1), gpus);
  }

  /** The lease (and collector timeout) of {@link #claim(String, int)}. */
  Duration lease() {
    return LEASE;
  }

  /** Claims up to {@code limit} jobs for the collector with {@link #lease()}. */
  final List<Claim> claim(String collector, int limit) {
    return claim(collector, limit, lease());
  }

  /** Claims up to {@code limit} jobs for the collector with the given lease and collector timeout. */
  final List<Claim> claim(String collector, int limit, Duration lease) {
    ClaimResult result = store.claim(ClaimCommand.builder().collector(collector).leaseDuration(lease).limit(limit)
        .build());
    assertThat(result.status()).isEqualTo(ClaimResult.Status.OK);
    assertHeldOnce();
    return result.claims();
  }

  /** Claims exactly one job and returns its devices. */
  final List<Integer> claimDevices(String collector, Job expected) {
    List<Claim> claims = claim(collector, 1);
    assertThat(claims).as("claims of %s", collector).hasSize(1);
    Claim c = claims.get(0);
    assertThat(c.job().id()).isEqualTo(expected.id());
    assertThat(reload(c.job())).isEqualTo(c.job());
    return c.lease().devices();
  }

  /** Asserts that no device of any collector is held by two live leases. */
  final void assertHeldOnce() {
    Set<String> held = new HashSet<>();
    for (int i = 1; i <= 10_000; i++) {
      var job = store.job(dev.cipolicy.queue.model.JobId.of(i));
      if (job.isEmpty()) {
        break;
      }
      if (job.get().state() == JobState.LEASED) {
        var lease = job.get().lease().orElseThrow();
        assertThat(lease.devices()).hasSize(job.get().spec().gpus());
        for (int d : lease.devices()) {
          assertThat(held.add(lease.collector() + "/" + d)).as("device %s of %s held twice", d, lease.collector())
              .isTrue();
        }
      }
    }
  }

  final void complete(Job job) {
    assertThat(store.complete(ref(this, job)).status()).isEqualTo(LeaseStatus.OK);
  }

  static LeaseRef ref(GpuKitGroup t, Job job) {
    return LeaseRef.of(t.reload(job).lease().orElseThrow());
  }
}

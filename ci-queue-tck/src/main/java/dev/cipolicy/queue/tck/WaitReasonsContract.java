package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.JobWait;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for wait reasons: every queued job of a pool says why it is not running, as a kind and
 * a sentence, read from the same snapshot a claim places from.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Wait reasons" group.
 */
abstract class WaitReasonsContract extends GpuKitGroup {

  WaitReasonsContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Override
  Duration lease() {
    return Duration.ofHours(4);
  }

  private List<JobWait> waits() {
    return store.waitingJobs("gpu", LEASE);
  }

  @Test
  @DisplayName("a GPU job says whether a host is reserved for it, too small, busy, reserved for another or free")
  void gpuReasons() {
    host("h0", Devices.count(8));
    Job holder = gpuJobs(Duration.ofMinutes(30), 6).get(0);
    claimDevices("h0", holder);
    Job head = gpuJobs(Duration.ofHours(1), 8).get(0);
    Job huge = gpuJobs(Duration.ofHours(1), 16).get(0);
    Job longer = gpuJobs(Duration.ofHours(1), 2).get(0);
    Job behind = gpuJobs(Duration.ofMinutes(5), 2).get(0);
    Job four = gpuJobs(Duration.ofMinutes(5), 4).get(0);
    Job shorter = gpuJobs(Duration.ofMinutes(10), 1).get(0);
    List<JobWait> waits = waits();
    assertThat(waits).extracting(w -> w.job().id()).containsExactly(head.id(), huge.id(), longer.id(), behind.id(),
        four.id(), shorter.id());
    assertThat(waits).extracting(w -> w.reason().kind()).containsExactly(WaitReason.Kind.RESERVED_FOR_IT,
        WaitReason.Kind.NO_HOST_LARGE_ENOUGH, WaitReason.Kind.HOST_RESERVED, WaitReason.Kind.BEHIND_OLDER_JOB,
        WaitReason.Kind.NO_FREE_DEVICES, WaitReason.Kind.CLAIMABLE);
    Instant free = START.plus(Duration.ofMinutes(30));
    assertThat(waits).extracting(JobWait::reason).containsExactly(
        WaitReason.of(WaitReason.Kind.RESERVED_FOR_IT, "gpu", 8).host("h0").free(2).size(8).expectedFree(free)
            .build(),
        WaitReason.of(WaitReason.Kind.NO_HOST_LARGE_ENOUGH, "gpu", 16).largestHost(8).build(),
        WaitReason.of(WaitReason.Kind.HOST_RESERVED, "gpu", 2).host("h0").otherJob(head.id()).expectedFree(free)
            .build(),
        WaitReason.of(WaitReason.Kind.BEHIND_OLDER_JOB, "gpu", 2).otherJob(longer.id()).build(),
        WaitReason.of(WaitReason.Kind.NO_FREE_DEVICES, "gpu", 4).mostFree(2).build(),
        WaitReason.of(WaitReason.Kind.CLAIMABLE, "gpu", 1).host("h0").free(2).size(8).build());
    assertThat(waits).allSatisfy(w -> assertThat(reload(w.job())).isEqualTo(w.job()));
    // Reading the reasons changes nothing: the claim takes what the reasons said was claimable.
    assertThat(claimDevices("h0", shorter)).containsExactly(6);
  }

  @Test
  @DisplayName("without live collectors a job says so; a job that needs no GPU is claimable by a live one")
  void collectorReasons() {
    Request r = submit(NewRequest.master("w1", null));
    List<Job> jobs = store.startRequest(StartCommand.builder().requestId(r.id())
        .jobs(List.of(JobSpec.required("cpu", "gpu"), JobSpec.required("g2", "gpu").withGpus(2, Duration.ofMinutes(5))))
        .maxInProgress(10).build()).jobs();
    assertThat(waits()).extracting(JobWait::reason).containsExactly(
        WaitReason.of(WaitReason.Kind.NO_LIVE_COLLECTOR, "gpu", 0).build(),
        WaitReason.of(WaitReason.Kind.NO_LIVE_COLLECTOR, "gpu", 2).build());
    store.registerCollector("cpu", "gpu", true);
    assertThat(waits()).extracting(w -> w.reason().kind()).containsExactly(WaitReason.Kind.CLAIMABLE,
        WaitReason.Kind.NO_LIVE_COLLECTOR);
    assertThat(waits().get(0).reason())
        .isEqualTo(WaitReason.of(WaitReason.Kind.CLAIMABLE, "gpu", 0).liveCollectors(1).build());
    host("h0", Devices.count(2));
    assertThat(waits()).extracting(w -> w.reason().kind()).containsExactly(WaitReason.Kind.CLAIMABLE,
        WaitReason.Kind.CLAIMABLE);
    // A collector whose heartbeat is older than the timeout no longer counts.
    clock.advance(LEASE.plusSeconds(1));
    assertThat(waits()).extracting(w -> w.reason().kind()).containsExactly(WaitReason.Kind.NO_LIVE_COLLECTOR,
        WaitReason.Kind.NO_LIVE_COLLECTOR);
    assertThat(store.waitingJobs("other", LEASE)).isEmpty();
    assertThat(jobs).hasSize(2);
  }
}

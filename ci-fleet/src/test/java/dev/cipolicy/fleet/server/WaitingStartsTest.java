package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.placement.DevicePlacement;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.placement.ShareLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The expected start of every waiting job, from pool views built by the store's own placement rules
 * ({@link DevicePlacement#view}): the reserved job at the reservation's instant, the others by a forward
 * simulation in queue order, and "unknown" with the reason when there is no answer.
 */
class WaitingStartsTest {
  private static final Instant NOW = Instant.parse("2026-12-06T09:00:00Z");
  private static final String POOL = "gpu";

  private static Job job(long id, int gpus, Duration estimate) {
    return Job.created(JobId.of(id), RequestId.of(1), JobSpec.required("g" + id, POOL).withGpus(gpus, estimate), NOW);
  }

  private static Job cpuJob(long id) {
    return Job.created(JobId.of(id), RequestId.of(1), JobSpec.required("c" + id, POOL), NOW);
  }

  /** A host of 8 devices whose listed devices a job (id 100 + index) holds until the given minutes from now. */
  private static DevicePlacement.Host host(String name, int heldDevices, long minutes) {
    List<DevicePlacement.Holding> holdings = heldDevices == 0 ? List.of() : List.of(new DevicePlacement.Holding(
        JobId.of(name.equals("h0") ? 100 : 101), java.util.stream.IntStream.range(0, heldDevices).boxed().toList(),
        NOW.plus(Duration.ofMinutes(minutes))));
    return new DevicePlacement.Host(name, Devices.count(8), holdings);
  }

  private static PoolView view(List<Job> queued, List<DevicePlacement.Host> hosts, List<String> live) {
    return DevicePlacement.view(POOL, NOW, queued, hosts, live, FleetShares.none(), new ShareLedger(POOL), null);
  }

  private static Map<JobId, WaitingStarts.Start> starts(PoolView view) {
    return WaitingStarts.of(view, s -> s.estimate().toSeconds());
  }

  private static Instant in(long minutes) {
    return NOW.plus(Duration.ofMinutes(minutes));
  }

  @Test
  void theReservedJobStartsAtTheReservationsOwnInstantAndTheOthersAfterItInQueueOrder() {
    PoolView view = view(List.of(job(1, 8, Duration.ofHours(1)), job(2, 8, Duration.ofMinutes(20)),
        job(3, 4, Duration.ofMinutes(10))), List.of(host("h0", 8, 30)), List.of("h0"));
    assertThat(view.reservation()).isPresent();
    Map<JobId, WaitingStarts.Start> s = starts(view);

    // The very instant the store records for the reservation (the GPU panel shows it too).
    assertThat(s.get(JobId.of(1)).at()).isEqualTo(view.reservation().get().until()).isEqualTo(in(30));
    // Behind it, in queue order: job 2 takes the host when job 1 ends, job 3 when job 2 ends (no backfill).
    assertThat(s.get(JobId.of(2)).at()).isEqualTo(in(30 + 60));
    assertThat(s.get(JobId.of(3)).at()).isEqualTo(in(30 + 60 + 20));
    assertThat(s.values()).allSatisfy(x -> assertThat(x.unknownBecause()).isNull());
  }

  @Test
  void aClaimableJobStartsNowAndAJobGoesToTheHostThatFreesEnoughDevicesFirst() {
    // h0: 4 of 8 held for 10 more minutes; h1: all 8 held for 40. Job 1 (8 GPUs) is reserved on h0; job 2
    // (4 GPUs, 10 minutes) backfills h0's free devices now; job 3 (6 GPUs) waits for h1 (h0 busy with job 1).
    PoolView view = view(List.of(job(1, 8, Duration.ofHours(1)), job(2, 4, Duration.ofMinutes(10)),
        job(3, 6, Duration.ofMinutes(5))), List.of(host("h0", 4, 10), host("h1", 8, 40)), List.of("h0", "h1"));
    Map<JobId, WaitingStarts.Start> s = starts(view);
    assertThat(view.reservation().orElseThrow().host()).isEqualTo("h0");
    assertThat(view.waits().get(1).reason().kind()).isEqualTo(WaitReason.Kind.CLAIMABLE);

    assertThat(s.get(JobId.of(2)).at()).isEqualTo(NOW);
    assertThat(s.get(JobId.of(1)).at()).isEqualTo(in(10));
    assertThat(s.get(JobId.of(3)).at()).isEqualTo(in(40));
  }

  @Test
  void aCpuJobStartsAtTheNextClaimWhileACollectorIsLive() {
    Map<JobId, WaitingStarts.Start> s = starts(view(List.of(cpuJob(1)), List.of(), List.of("cpu-0")));
    assertThat(s.get(JobId.of(1)).at()).isEqualTo(NOW);
  }

  @Test
  void unknownBecauseThePoolHasNoLiveCollector() {
    Map<JobId, WaitingStarts.Start> s = starts(view(List.of(cpuJob(1), job(2, 2, Duration.ofMinutes(5))),
        List.of(), List.of()));
    assertThat(s.get(JobId.of(1)).at()).isNull();
    assertThat(s.get(JobId.of(1)).unknownBecause()).isEqualTo("pool gpu has no live collector");
    assertThat(s.get(JobId.of(2)).unknownBecause()).isEqualTo("pool gpu has no live collector that advertises devices");
  }

  @Test
  void unknownBecauseNoHostOfThePoolIsLargeEnough() {
    Map<JobId, WaitingStarts.Start> s = starts(view(List.of(job(1, 16, Duration.ofMinutes(5))),
        List.of(host("h0", 0, 0)), List.of("h0")));
    assertThat(s.get(JobId.of(1)).at()).isNull();
    assertThat(s.get(JobId.of(1)).unknownBecause()).isEqualTo("no live host of pool gpu has 16 GPUs (the largest has 8)");
  }

  @Test
  void unknownBecauseAJobAheadHasNoEstimate() {
    // Job 1 has no estimate: it starts at its reservation, but when it ends, and so when job 2 starts, is unknown.
    PoolView view = view(List.of(job(1, 8, Duration.ZERO), job(2, 8, Duration.ofMinutes(5))),
        List.of(host("h0", 8, 30)), List.of("h0"));
    Map<JobId, WaitingStarts.Start> s = starts(view);
    assertThat(s.get(JobId.of(1)).at()).isEqualTo(in(30));
    assertThat(s.get(JobId.of(2)).at()).isNull();
    assertThat(s.get(JobId.of(2)).unknownBecause()).startsWith("estimate missing: job 1, ahead of it, has no estimate");
  }

  @Test
  void unknownBecauseItsFleetShareIsFull() {
    ShareLedger ledger = new ShareLedger(POOL);
    JobSpec running = JobSpec.required("r", POOL).withGpus(4, Duration.ofMinutes(30)).withCadence("nightly");
    ledger.leased(running);
    Job nightly = Job.created(JobId.of(1), RequestId.of(1),
        JobSpec.required("n", POOL).withGpus(4, Duration.ofMinutes(10)).withCadence("nightly"), NOW);
    ledger.queued(nightly.spec());
    PoolView view = DevicePlacement.view(POOL, NOW, List.of(nightly), List.of(host("h0", 4, 30)), List.of("h0"),
        FleetShares.of(FleetShares.Share.gpus("nightly", POOL, 4)), ledger, null);
    assertThat(view.waits().get(0).reason().kind()).isEqualTo(WaitReason.Kind.SHARE_FULL);
    WaitingStarts.Start s = starts(view).get(JobId.of(1));
    assertThat(s.at()).isNull();
    assertThat(s.unknownBecause()).startsWith("its cadence's fleet share of pool gpu is full");
  }
}

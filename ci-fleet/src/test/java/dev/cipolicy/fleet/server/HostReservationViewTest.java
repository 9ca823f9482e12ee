package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.fleet.server.Api.HostDto;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.LeaseRef;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The host panel shows the reservation the store keeps: after an older job of the same GPU count is released
 * back to the queue, the host stays reserved for the younger job that holds the reservation (the next claim
 * takes it), not for the older job a placement from the queue's order alone would pick; and a job its fleet
 * share refuses reserves no host there.
 */
class HostReservationViewTest {

  private static final Duration LEASE = QueueSettings.withoutJobs().leaseDuration();
  private static final Duration HOUR = Duration.ofHours(1);

  @Test
  void theHostPanelShowsTheReservationTheStoreKeeps() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);
    // The requests' jobs are started by hand below, so the settings plan none.
    JobQueue queue = JobQueue.inMemory(clock, QueueSettings.withoutJobs());
    QueueStore store = queue.store();
    store.registerCollector("h0", "gpu", true, Devices.count(8));
    Job older = start(store, "older", JobSpec.required("older", "gpu").withGpus(8, Duration.ofHours(1)));
    Claim held = claimOnH0(store, LEASE).get(0);
    assertThat(held.job().id()).isEqualTo(older.id());
    Job younger = start(store, "younger", JobSpec.required("younger", "gpu").withGpus(8, Duration.ofHours(1)));
    // Nothing fits: this claim of h0 reserves it for the younger job, the head of the pool.
    assertThat(claimOnH0(store, LEASE)).isEmpty();
    assertThat(store.release(LeaseRef.of(held.lease())).status()).isEqualTo(LeaseStatus.OK);

    HostDto h0 = new FleetView(queue, List.of(), false).overview().hosts().get(0);

    assertThat(h0.reservation()).isNotNull();
    assertThat(h0.reservation().jobId()).isEqualTo(younger.id().value());
    assertThat(h0.devices()).allSatisfy(d -> {
      assertThat(d.state()).isEqualTo("reserved");
      assertThat(d.jobId()).isEqualTo(younger.id().value());
    });
    // The store agrees: h0's next claim takes the younger job.
    assertThat(claimOnH0(store, LEASE)).extracting(c -> c.job().id()).containsExactly(younger.id());
  }

  @Test
  void aJobItsShareRefusesReservesNoHostOnThePanel() {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-05T09:00:00Z"));
    JobQueue queue = JobQueue.inMemory(now::get, QueueSettings.withoutJobs());
    QueueStore store = queue.store();
    store.registerCollector("h0", "gpu", true, Devices.count(8));
    store.setShares(FleetShares.of(FleetShares.Share.gpus("weekly", "gpu", 4)));
    start(store, "holder", JobSpec.required("holder", "gpu").withGpus(6, Duration.ofMinutes(30)));
    assertThat(claimOnH0(store, HOUR)).hasSize(1);
    Job weekly = start(store, "weekly", JobSpec.required("weekly", "gpu").withGpus(4, Duration.ofHours(1))
        .withCadence("weekly"));
    assertThat(claimOnH0(store, HOUR)).isEmpty();
    assertThat(new FleetView(queue, List.of(), false).overview().hosts().get(0).reservation().jobId())
        .isEqualTo(weekly.id().value());
    // A short weekly job backfills the two free devices: the share refuses the reserved job, which keeps its
    // reservation only dormant, so the panel shows no host reserved for it.
    start(store, "short", JobSpec.required("short", "gpu").withGpus(2, Duration.ofMinutes(10)).withCadence("weekly"));
    List<Claim> backfill = claimOnH0(store, HOUR);
    assertThat(backfill).extracting(c -> c.job().spec().benchmarkGroup()).containsExactly("short");
    assertThat(new FleetView(queue, List.of(), false).overview().hosts().get(0).reservation()).isNull();
    // Admitted again once the short job ends, it holds the reservation again.
    now.set(now.get().plus(Duration.ofMinutes(10)));
    assertThat(store.complete(LeaseRef.of(backfill.get(0).lease())).status()).isEqualTo(LeaseStatus.OK);
    assertThat(claimOnH0(store, HOUR)).isEmpty();
    assertThat(new FleetView(queue, List.of(), false).overview().hosts().get(0).reservation().jobId())
        .isEqualTo(weekly.id().value());
  }

  /** One claim by h0 with the given lease and a crash-rescue budget of 1. */
  private static List<Claim> claimOnH0(QueueStore store, Duration lease) {
    return store.claim(ClaimCommand.builder().collector("h0").leaseDuration(lease).maxCrashRescues(1).build())
        .claims();
  }

  private static Job start(QueueStore store, String tag, JobSpec spec) {
    RequestId id = store.submit(NewRequest.master(tag, null)).request().id();
    return store.startRequest(StartCommand.builder().requestId(id).jobs(List.of(spec)).maxInProgress(100).build())
        .jobs().get(0);
  }
}

package dev.cipolicy.examples.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.examples.fleet.Api.HostDto;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.spi.Claim;
import dev.cipolicy.queue.spi.ClaimCommand;
import dev.cipolicy.queue.spi.Devices;
import dev.cipolicy.queue.spi.Job;
import dev.cipolicy.queue.spi.JobSpec;
import dev.cipolicy.queue.spi.LeaseRef;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.NewRequest;
import dev.cipolicy.queue.spi.QueueStore;
import dev.cipolicy.queue.spi.RequestId;
import dev.cipolicy.queue.spi.StartCommand;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The host panel shows the reservation the store keeps: after an older job of the same GPU count is released
 * back to the queue, the host stays reserved for the younger job that holds the reservation (the next claim
 * takes it), not for the older job a placement from the queue's order alone would pick.
 */
class HostReservationViewTest {

  private static final Duration LEASE = QueueSettings.withoutJobs().leaseDuration();

  @Test
  void theHostPanelShowsTheReservationTheStoreKeeps() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);
    // The requests' jobs are started by hand below, so the settings plan none.
    JobQueue queue = JobQueue.inMemory(clock, QueueSettings.withoutJobs());
    QueueStore store = queue.store();
    store.registerCollector("h0", "gpu", true, Devices.count(8));
    Job older = start(store, "older", JobSpec.required("older", "gpu").withGpus(8, Duration.ofHours(1)));
    Claim held = store.claim(new ClaimCommand("h0", LEASE, LEASE, 1, 1)).claims().get(0);
    assertThat(held.job().id()).isEqualTo(older.id());
    Job younger = start(store, "younger", JobSpec.required("younger", "gpu").withGpus(8, Duration.ofHours(1)));
    // Nothing fits: this claim of h0 reserves it for the younger job, the head of the pool.
    assertThat(store.claim(new ClaimCommand("h0", LEASE, LEASE, 1, 1)).claims()).isEmpty();
    assertThat(store.release(LeaseRef.of(held.lease())).status()).isEqualTo(LeaseStatus.OK);

    HostDto h0 = new FleetView(queue, List.of(), false).overview().hosts().get(0);

    assertThat(h0.reservation()).isNotNull();
    assertThat(h0.reservation().jobId()).isEqualTo(younger.id().value());
    assertThat(h0.devices()).allSatisfy(d -> {
      assertThat(d.state()).isEqualTo("reserved");
      assertThat(d.jobId()).isEqualTo(younger.id().value());
    });
    // The store agrees: h0's next claim takes the younger job.
    assertThat(store.claim(new ClaimCommand("h0", LEASE, LEASE, 1, 1)).claims())
        .extracting(c -> c.job().id()).containsExactly(younger.id());
  }

  private static Job start(QueueStore store, String tag, JobSpec spec) {
    RequestId id = store.submit(NewRequest.master(tag, null)).request().id();
    return store.startRequest(new StartCommand(id, List.of(spec), false, 100)).jobs().get(0);
  }
}

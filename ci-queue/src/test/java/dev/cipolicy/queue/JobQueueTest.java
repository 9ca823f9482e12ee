package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.FleetShares;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.RequestState;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.placement.PoolView;
import dev.cipolicy.queue.spi.LeaseStatus;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The quick-start example of docs/queue.md, run as a test. */
class JobQueueTest {

  @Test
  void quickStart() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);
    QueueSettings settings = QueueSettings.builder()
        .addBenchmarkGroups("compile-time", "runtime")
        .addCollectorTargets(CollectorTarget.required("x86-64"), CollectorTarget.optional("aarch64"))
        .build();
    JobQueue queue = JobQueue.inMemory(clock, settings);

    queue.registerCollector("bench-1", "x86-64", true);
    var request = queue.submit(NewRequest.master("9b2e1d0", "3f9a0c1").withPr(1234)).request();
    TickResult started = queue.tick();                       // starts it: 2 groups x 2 tags = 4 jobs
    assertThat(started.started().get(0).jobs()).hasSize(4);

    for (Claim claim : queue.claim("bench-1", 10).claims()) {
      // ... run claim.job().spec().benchmarkGroup() on this machine, heartbeat while it runs ...
      assertThat(queue.complete(claim.lease()).status()).isEqualTo(LeaseStatus.OK);
    }
    TickResult done = queue.tick();                          // the optional aarch64 jobs do not block
    assertThat(done.events()).singleElement().satisfies(e -> assertThat(e.outcome()).isEqualTo(Outcome.SUCCESS));
    assertThat(queue.store().request(request.id()).orElseThrow().state()).isEqualTo(RequestState.COMPLETED);
    assertThat(done.explanation().sentence()).startsWith("tick at 2026-01-05T09:00:00Z: completed 1, started 0");
  }

  @Test
  void theEngineRegistersHostsSetsSharesAndReadsAPoolsView() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC);
    JobSpec eight = JobSpec.required("train", "h200").withGpus(8, java.time.Duration.ofMinutes(30));
    JobQueue queue = JobQueue.inMemory(clock, QueueSettings.builder().planner(r -> java.util.List.of(eight)).build());
    assertThat(queue.registerHost("h200-0", "h200", Devices.count(4)).status())
        .isEqualTo(dev.cipolicy.queue.spi.RegisterResult.Status.REGISTERED);
    queue.setShares(FleetShares.of(FleetShares.Share.gpus("nightly", "h200", 4)));
    assertThat(queue.shares().covers("h200")).isTrue();
    queue.submit(NewRequest.release("v1"));
    queue.tick();
    PoolView view = queue.pool("h200");
    assertThat(view.liveCollectors()).containsExactly("h200-0");
    assertThat(view.hosts()).extracting(h -> h.name()).containsExactly("h200-0");
    assertThat(queue.waitingJobs("h200")).singleElement().satisfies(w -> {
      assertThat(w.reason().kind()).isEqualTo(WaitReason.Kind.NO_HOST_LARGE_ENOUGH);
      assertThat(w.reason().largestHost()).hasValue(4);
    });
    assertThatThrownBy(() -> queue.registerHost("h200-1", "h200", null))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("devices of host h200-1");
  }
}

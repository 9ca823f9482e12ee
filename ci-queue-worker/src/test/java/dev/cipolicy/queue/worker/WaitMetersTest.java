package dev.cipolicy.queue.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.WaitReason;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.tck.SettableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WaitMetersTest {

  private final SettableClock clock = SettableClock.at("2026-01-05T09:00:00Z");
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final JobSpec first = JobSpec.required("stage-c-8-a", "b200").withGpus(8, Duration.ofMinutes(30));
  private final JobSpec second = JobSpec.required("stage-c-8-b", "b200").withGpus(8, Duration.ofMinutes(30));
  private final JobSpec orphan = JobSpec.required("stage-c-8-h100", "h100").withGpus(8, Duration.ofMinutes(30));
  private final JobQueue queue = JobQueue.inMemory(clock, QueueSettings.builder().maxInProgress(1)
      .planner(request -> List.of(first, second, orphan)).build());

  private double jobs(String pool, WaitReason.Kind kind) {
    return registry.get(WaitMeters.WAITING_JOBS).tag("pool", pool).tag("reason", WaitMeters.tagOf(kind))
        .gauge().value();
  }

  private double oldest(String pool, WaitReason.Kind kind) {
    return registry.get(WaitMeters.OLDEST_WAIT).tag("pool", pool).tag("reason", WaitMeters.tagOf(kind))
        .gauge().value();
  }

  private double requests(WaitReason.Kind kind) {
    return registry.get(WaitMeters.WAITING_REQUESTS).tag("reason", WaitMeters.tagOf(kind)).gauge().value();
  }

  @Test
  void gaugesCountTheStoresOwnReasonsAndGoBackToZero() {
    WaitMeters meters = WaitMeters.register(registry, queue, List.of("b200", "h100"));
    assertThat(registry.get(WaitMeters.WAITING_JOBS).gauges())
        .hasSize(2 * WaitReason.Kind.values().length);
    assertThat(jobs("b200", WaitReason.Kind.RESERVED_FOR_IT)).isZero();

    queue.store().registerCollector("b200-0", "b200", true, Devices.count(8));
    queue.submit(NewRequest.master("m1", null));
    queue.submit(NewRequest.master("m2", "m1"));
    queue.tick();
    Claim running = queue.claim("b200-0", 1).claims().get(0);
    assertThat(running.job().spec()).isEqualTo(first);
    clock.set(clock.instant().plus(Duration.ofSeconds(90)));
    queue.collectorHeartbeat("b200-0");

    Map<WaitReason.Kind, Integer> totals = meters.refresh();
    // the second 8-GPU job is the head and has the host reserved; no h100 host exists at all
    assertThat(jobs("b200", WaitReason.Kind.RESERVED_FOR_IT)).isEqualTo(1);
    assertThat(oldest("b200", WaitReason.Kind.RESERVED_FOR_IT)).isEqualTo(90);
    assertThat(jobs("h100", WaitReason.Kind.NO_LIVE_COLLECTOR)).isEqualTo(1);
    assertThat(jobs("h100", WaitReason.Kind.RESERVED_FOR_IT)).isZero();
    assertThat(requests(WaitReason.Kind.CAP_REACHED)).isEqualTo(1);
    assertThat(totals).containsEntry(WaitReason.Kind.RESERVED_FOR_IT, 1)
        .containsEntry(WaitReason.Kind.NO_LIVE_COLLECTOR, 1).containsEntry(WaitReason.Kind.CAP_REACHED, 1);

    assertThat(queue.complete(running.lease()).status()).isEqualTo(LeaseStatus.OK);
    assertThat(queue.claim("b200-0", 1).claims().get(0).job().spec()).isEqualTo(second);
    meters.refresh();
    assertThat(jobs("b200", WaitReason.Kind.RESERVED_FOR_IT)).isZero();
    assertThat(oldest("b200", WaitReason.Kind.RESERVED_FOR_IT)).isZero();
    assertThat(jobs("h100", WaitReason.Kind.NO_LIVE_COLLECTOR)).isEqualTo(1);
  }

  @Test
  void badArgumentsAreRefusedInOneLine() {
    assertThatThrownBy(() -> WaitMeters.register(registry, queue, List.of()))
        .isInstanceOf(InvalidQueueInputException.class).hasMessage("wait meters watch 0 pools; expected 1 to 256");
    assertThatThrownBy(() -> WaitMeters.register(registry, queue, List.of("b 200")))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("'b 200' is not a collector tag")
        .hasMessageNotContaining("\n");
  }
}

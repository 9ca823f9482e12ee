package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.cipolicy.queue.model.JobSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EtaPlannerTest {
  private static JobSpec job(String group, String pool, int gpus, long seconds) {
    return JobSpec.required(group, pool).withGpus(gpus, Duration.ofSeconds(seconds));
  }

  @Test
  void queuedJobsGoWhereDevicesFreeUpFirstAndLaterRequestsWaitForACapSlot() {
    EtaPlanner p = new EtaPlanner();
    p.host("h200-0", "h200", 8);
    p.running(new EtaPlanner.Running("h200-0", 4, 100));
    JobSpec four = job("c4", "h200", 4, 50);
    JobSpec eight = job("c8", "h200", 8, 30);
    Map<String, Double> eta = p.plan(List.of(
        new EtaPlanner.Work("1", true, List.of(four, eight), 100),
        new EtaPlanner.Work("2", false, List.of(job("c2", "h200", 2, 10)), 0)), 1, s -> s.estimate().toSeconds());
    // c4 fits on the 4 free devices now (0-50); c8 waits for all 8 (after 100) and ends at 130.
    assertThat(eta.get("1")).isCloseTo(130, within(1e-9));
    // Request 2 starts when request 1 frees the only slot.
    assertThat(eta.get("2")).isCloseTo(140, within(1e-9));
  }

  @Test
  void aJobWithoutAHostOfItsPoolLeavesItsRequestWithoutAnEta() {
    EtaPlanner p = new EtaPlanner();
    p.host("cpu-0", "cpu", 2);
    Map<String, Double> eta = p.plan(List.of(new EtaPlanner.Work("1", true, List.of(job("x", "b200", 8, 10)), 0)), 2,
        s -> 10);
    assertThat(eta).doesNotContainKey("1");
  }

  @Test
  void theExpectedDurationIsTheMedianOfRecentSuccessesElseTheEstimate() {
    DurationHistory h = new DurationHistory();
    JobSpec spec = job("c8", "h100", 8, 600);
    assertThat(h.expectedSeconds(spec)).isEqualTo(600.0);
    h.record(spec, 100);
    h.record(spec, 300);
    h.record(spec, 200);
    assertThat(h.expectedSeconds(spec)).isEqualTo(200.0);
    for (int i = 0; i < DurationHistory.WINDOW; i++) {
      h.record(spec, 50);
    }
    assertThat(h.samples(spec)).isEqualTo(DurationHistory.WINDOW);
    assertThat(h.expectedSeconds(spec)).isEqualTo(50.0);
  }
}

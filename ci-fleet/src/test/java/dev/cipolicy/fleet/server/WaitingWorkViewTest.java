package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.fleet.server.Api.HostDto;
import dev.cipolicy.fleet.server.Api.JobWaitDto;
import dev.cipolicy.fleet.server.Api.OverviewDto;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.ClaimCommand;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The waiting work of the overview: every waiting job's expected start, the reserved one at the instant the GPU
 * map shows for its reservation; the jobs of a request not started behind them; and the filters.
 */
class WaitingWorkViewTest {
  private JobQueue queue;
  private RequestId first;
  private RequestId second;

  @BeforeEach
  void fleet() {
    Clock clock = Clock.fixed(Instant.parse("2026-12-06T09:00:00.123456Z"), ZoneOffset.UTC);
    QueueSettings settings = QueueSettings.builder().maxInProgress(1).planner(r -> List.of(
        JobSpec.required("big", "gpu").withGpus(8, Duration.ofHours(1)),
        JobSpec.required("small", "gpu").withGpus(4, Duration.ofMinutes(10)))).build();
    queue = JobQueue.inMemory(clock, settings);
    queue.store().registerCollector("h0", "gpu", true, Devices.count(8));
    first = queue.store().submit(NewRequest.master("aaaa1111", null)).request().id();
    queue.tick();
    // h0 takes the 8-GPU job; the 4-GPU job waits for it, with h0 reserved for it.
    assertThat(queue.store().claim(ClaimCommand.builder().collector("h0").leaseDuration(Duration.ofHours(2))
        .maxCrashRescues(1).build()).claims()).hasSize(1);
    second = queue.store().submit(NewRequest.master("bbbb2222", null).withPr(42)).request().id();
    queue.tick();
  }

  private OverviewDto overview(String pool, String cadence, String state, String pr, String q) {
    return new FleetView(queue, List.of(), false).overview(WorkFilter.parse(pool, cadence, state, pr, q));
  }

  @Test
  void theReservedJobStartsAtTheInstantTheGpuMapShowsForItsReservation() {
    OverviewDto o = new FleetView(queue, List.of(), false).overview();
    HostDto h0 = o.hosts().get(0);
    assertThat(h0.reservation()).isNotNull();
    JobWaitDto small = o.waitingJobs().get(0);
    assertThat(small.jobId()).isEqualTo(h0.reservation().jobId());
    assertThat(small.state()).isEqualTo("waiting");
    assertThat(small.reason().kind()).isEqualTo("reserved-for-it");
    // One instant, from the store's record, in all three places.
    assertThat(small.expectedStartAt()).isEqualTo(h0.reservation().until());
    assertThat(small.reason().at()).isEqualTo(h0.reservation().until());
    assertThat(Instant.parse(h0.reservation().until())).isEqualTo(Instant.parse("2026-12-06T10:00:00.123456Z"));
    // Its request: kind, cadence.
    assertThat(small.request().kind()).isEqualTo("master");
    assertThat(small.request().cadence()).isEqualTo("regular");
  }

  @Test
  void theJobsOfARequestNotStartedAreListedBehindTheWaitingJobs() {
    List<JobWaitDto> jobs = new FleetView(queue, List.of(), false).overview().waitingJobs();
    assertThat(jobs).extracting(JobWaitDto::state).containsExactly("waiting", "not-started", "not-started");
    JobWaitDto later = jobs.get(1);
    assertThat(later.jobId()).isNull();
    assertThat(later.requestId()).isEqualTo(second.value());
    assertThat(later.request().pr()).isEqualTo(42L);
    assertThat(later.job()).isEqualTo("big@gpu");
    assertThat(later.gpus()).isEqualTo(8);
    assertThat(later.expectedStartAt()).isNull();
    assertThat(later.expectedStartUnknown()).isEqualTo("its request has not started");
    // Its reason is its request's.
    assertThat(later.reason().kind()).isEqualTo("cap-reached");
    assertThat(later.reason().sentence()).startsWith("cap of 1 request in progress reached");
  }

  @Test
  void theFiltersKeepOnlyTheMatchingWork() {
    assertThat(overview(null, null, "not-started", null, null).waitingJobs())
        .allSatisfy(j -> assertThat(j.requestId()).isEqualTo(second.value())).hasSize(2);
    assertThat(overview(null, null, "not-started", null, null).queue())
        .extracting(e -> e.request().id()).containsExactly(second.value());
    assertThat(overview(null, null, "waiting", null, null).waitingJobs()).extracting(JobWaitDto::state)
        .containsExactly("waiting");
    assertThat(overview(null, null, null, "42", null).waitingJobs()).hasSize(2);
    assertThat(overview(null, null, null, "#42", null).queue()).hasSize(1);
    assertThat(overview(null, null, null, null, "#42").waitingJobs()).hasSize(2);
    assertThat(overview(null, null, null, null, "AAAA11").waitingJobs()).extracting(JobWaitDto::requestId)
        .containsExactly(first.value());
    assertThat(overview(null, null, null, null, "aaa").waitingJobs()).as("a commit prefix under 4 characters")
        .isEmpty();
    assertThat(overview("gpu", "regular", null, null, null).waitingJobs()).hasSize(3);
    assertThat(overview("cpu", null, null, null, null).waitingJobs()).isEmpty();
    assertThat(overview("cpu", null, null, null, null).queue()).isEmpty();
    assertThat(overview(null, "nightly", null, null, null).waitingJobs()).isEmpty();
    // The filters leave the other panels alone, and the page's choices list every pool and cadence.
    OverviewDto none = overview("cpu", null, null, null, null);
    assertThat(none.hosts()).hasSize(1);
    assertThat(none.pools()).containsExactly("gpu");
    assertThat(none.cadences()).contains("regular");
  }

  @Test
  void aBadFilterIsOneLineNamingItsValue() {
    assertThatThrownBy(() -> WorkFilter.parse(null, null, "running", null, null))
        .isInstanceOf(FleetView.BadRequest.class)
        .hasMessage("state 'running' is not a state of waiting work; expected waiting or not-started");
    assertThatThrownBy(() -> WorkFilter.parse(null, null, null, "x1", null))
        .hasMessage("pr 'x1' is not a pull request number; expected a positive number such as 123");
    assertThatThrownBy(() -> WorkFilter.parse(null, null, null, "0", null))
        .hasMessageStartingWith("pr '0' is not a pull request number");
  }
}

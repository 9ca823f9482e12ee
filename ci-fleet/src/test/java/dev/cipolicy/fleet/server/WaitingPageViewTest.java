package dev.cipolicy.fleet.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.fleet.server.Api.JobWaitDto;
import dev.cipolicy.fleet.server.Api.OverviewDto;
import dev.cipolicy.fleet.server.Api.WaitingCountDto;
import dev.cipolicy.queue.JobQueue;
import dev.cipolicy.queue.QueueSettings;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The waiting jobs in pages: two requests in progress with seven queued jobs each (four on {@code gpu}, three on
 * {@code cpu}) and {@value #NOT_STARTED_REQUESTS} requests not started behind them (the cap is two), whose jobs
 * follow; a page lists a slice of the matching jobs and counts them all, by state and by pool.
 */
class WaitingPageViewTest {
  private static final int NOT_STARTED_REQUESTS = 80;

  private FleetView view;

  @BeforeEach
  void fleet() {
    Clock clock = Clock.fixed(Instant.parse("2026-12-06T09:00:00Z"), ZoneOffset.UTC);
    List<JobSpec> jobs = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      jobs.add(i < 4 ? JobSpec.required("g" + i, "gpu").withGpus(8, Duration.ofMinutes(10))
          : JobSpec.required("c" + i, "cpu"));
    }
    QueueSettings settings = QueueSettings.builder().maxInProgress(2).planner(r -> jobs).build();
    JobQueue queue = JobQueue.inMemory(clock, settings);
    queue.store().registerCollector("h0", "gpu", true, Devices.count(8));
    queue.store().registerCollector("c0", "cpu", true, Devices.none());
    for (int r = 0; r < 2 + NOT_STARTED_REQUESTS; r++) {
      queue.store().submit(NewRequest.master(String.format(Locale.ROOT, "%08x", 0xa0000000L + r), null));
    }
    queue.tick();
    view = new FleetView(queue, List.of(), false);
  }

  @Test
  void aPageListsItsSliceAndCountsEveryMatchingJobByStateAndPool() {
    FleetView.Computed c = view.compute();
    OverviewDto first = c.view(WorkFilter.NONE, WaitingPage.FIRST, false);
    int notStarted = 7 * NOT_STARTED_REQUESTS;
    assertThat(first.waitingJobs()).hasSize(WaitingPage.DEFAULT_LIMIT);
    assertThat(first.waitingJobsPage().offset()).isZero();
    assertThat(first.waitingJobsPage().limit()).isEqualTo(WaitingPage.DEFAULT_LIMIT);
    assertThat(first.waitingJobsPage().total()).as("more than the 500 rows of requests not started once listed")
        .isEqualTo(14 + notStarted);
    assertThat(first.waitingJobsPage().waiting()).isEqualTo(14);
    assertThat(first.waitingJobsPage().notStarted()).isEqualTo(notStarted);
    assertThat(first.waitingJobsPage().pools()).containsExactly(
        new WaitingCountDto("cpu", 6, 3 * NOT_STARTED_REQUESTS), new WaitingCountDto("gpu", 8, 4 * NOT_STARTED_REQUESTS));
    // The queued jobs first, by job id, then the jobs of the requests not started.
    assertThat(first.waitingJobs().subList(0, 14)).extracting(JobWaitDto::state).containsOnly("waiting");
    assertThat(first.waitingJobs().subList(0, 14)).extracting(JobWaitDto::jobId).isSorted();
    assertThat(first.waitingJobs().get(14).state()).isEqualTo("not-started");
  }

  @Test
  void thePagesTogetherListEveryJobOnceInOrder() {
    FleetView.Computed c = view.compute();
    List<JobWaitDto> all = c.view(WorkFilter.NONE, new WaitingPage(0, WaitingPage.MAX_LIMIT), false).waitingJobs();
    assertThat(all).hasSize(WaitingPage.MAX_LIMIT);
    List<JobWaitDto> paged = new ArrayList<>();
    for (int offset = 0; offset < WaitingPage.MAX_LIMIT; offset += 37) {
      List<JobWaitDto> page = c.view(WorkFilter.NONE, new WaitingPage(offset, 37), false).waitingJobs();
      paged.addAll(page.subList(0, Math.min(page.size(), WaitingPage.MAX_LIMIT - offset)));
    }
    assertThat(paged).isEqualTo(all);
    OverviewDto last = c.view(WorkFilter.NONE, new WaitingPage(14 + 7 * NOT_STARTED_REQUESTS - 3, 10), false);
    assertThat(last.waitingJobs()).hasSize(3);
    OverviewDto beyond = c.view(WorkFilter.NONE, new WaitingPage(100_000, 10), false);
    assertThat(beyond.waitingJobs()).isEmpty();
    assertThat(beyond.waitingJobsPage().total()).isEqualTo(14 + 7 * NOT_STARTED_REQUESTS);
  }

  @Test
  void aFilteredPageCountsOnlyTheMatchingJobsAndLeavesTheOtherPanelsAlone() {
    FleetView.Computed c = view.compute();
    OverviewDto all = c.view(WorkFilter.NONE, WaitingPage.FIRST, false);
    OverviewDto gpu = c.view(WorkFilter.parse("gpu", null, "waiting", null, null), new WaitingPage(2, 3), false);
    assertThat(gpu.waitingJobs()).hasSize(3).extracting(JobWaitDto::pool).containsOnly("gpu");
    assertThat(gpu.waitingJobsPage().total()).isEqualTo(8);
    assertThat(gpu.waitingJobsPage().notStarted()).isZero();
    assertThat(gpu.waitingJobsPage().pools()).containsExactly(new WaitingCountDto("gpu", 8, 0));
    assertThat(gpu.queue()).extracting(e -> e.section()).containsOnly("in_progress").hasSize(2);
    assertThat(gpu.hosts()).isEqualTo(all.hosts());
    assertThat(gpu.inProgress()).isEqualTo(all.inProgress());
    // The same rows as the unfiltered list, in its order.
    List<JobWaitDto> gpuWaiting = c.view(WorkFilter.NONE, new WaitingPage(0, 14), false).waitingJobs().stream()
        .filter(j -> j.pool().equals("gpu")).toList();
    assertThat(gpu.waitingJobs()).isEqualTo(gpuWaiting.subList(2, 5));
  }

  @Test
  void theControlsFlagIsTheReadersAndThePageFirstGetsIsReadOnly() {
    FleetView.Computed c = view.compute();
    assertThat(c.view(WorkFilter.NONE, WaitingPage.FIRST, true).controls()).isTrue();
    assertThat(c.view(WorkFilter.NONE, WaitingPage.FIRST, false).controls()).isFalse();
    assertThat(view.overview().controls()).isFalse();
    assertThat(view.overview(true).controls()).isTrue();
  }

  @Test
  void theLiveViewWritesAFilteredOrOperatorsOverviewAsTheDocumentItIs() {
    // Without a refresh delay each call computes; the clock stands still, so every computation is the same.
    LiveView live = new LiveView(view, null, e -> { });
    try {
      assertThat(live.overview(WorkFilter.NONE, WaitingPage.FIRST, false).text())
          .isEqualTo(JsonWriter.write(view.overview()));
      for (WorkFilter filter : List.of(WorkFilter.NONE, WorkFilter.parse("cpu", null, null, null, null),
          WorkFilter.parse(null, null, "not-started", null, null))) {
        for (WaitingPage page : List.of(WaitingPage.FIRST, new WaitingPage(90, 20))) {
          for (boolean controls : List.of(false, true)) {
            OverviewDto expected = live.answer("overview", filter, page, controls).overview();
            if (filter.equals(WorkFilter.NONE) && page.equals(WaitingPage.FIRST) && !controls) {
              continue;
            }
            assertThat(live.overview(filter, page, controls).text()).as("%s %s %s", filter, page, controls)
                .isEqualTo(JsonWriter.write(expected));
          }
        }
      }
    } finally {
      live.close();
    }
  }

  @Test
  void aFilteredPagedOrOperatorsAnswerIsWrittenOncePerRefreshUpToABound() {
    // Closed at once: no refresh runs in the background, so one overview is kept until a request computes one.
    LiveView live = new LiveView(view, Duration.ofHours(1), e -> { });
    live.close();
    WorkFilter cpu = WorkFilter.parse("cpu", null, null, null, null);
    LiveView.JsonText operators = live.overview(cpu, new WaitingPage(10, 10), true);
    assertThat(live.overview(cpu, new WaitingPage(10, 10), true)).isSameAs(operators);
    assertThat(live.overview(cpu, new WaitingPage(10, 10), false)).isNotSameAs(operators);
    LiveView.JsonText jobs = live.answer("waiting-jobs", cpu, WaitingPage.FIRST, false).body();
    assertThat(live.answer("waiting-jobs", cpu, WaitingPage.FIRST, false).body()).isSameAs(jobs);
    // Past the bound an answer is written for its request.
    for (int offset = 0; offset < LiveView.MAX_VIEWS_KEPT; offset++) {
      live.answer("queue", cpu, new WaitingPage(offset, 1), false);
    }
    WaitingPage past = new WaitingPage(LiveView.MAX_VIEWS_KEPT, 1);
    assertThat(live.answer("queue", cpu, past, false).body()).isNotSameAs(live.answer("queue", cpu, past, false)
        .body());
  }

  @Test
  void thePageIsReadFromTheQueryAndABadValueIsOneLine() {
    assertThat(WaitingPage.parse(null, " ")).isEqualTo(WaitingPage.FIRST);
    assertThat(WaitingPage.parse("200", "50")).isEqualTo(new WaitingPage(200, 50));
    assertThat(WaitingPage.parse("0", "500")).isEqualTo(new WaitingPage(0, WaitingPage.MAX_LIMIT));
    assertThatThrownBy(() -> WaitingPage.parse(null, "0")).isInstanceOf(FleetView.BadRequest.class)
        .hasMessage("limit 0 is out of range; expected 1 to 500");
    assertThatThrownBy(() -> WaitingPage.parse(null, "501")).hasMessage("limit 501 is out of range; expected 1 to 500");
    assertThatThrownBy(() -> WaitingPage.parse("-1", null))
        .hasMessage("offset -1 is out of range; expected 0 to 1000000");
    assertThatThrownBy(() -> WaitingPage.parse("1000001", null))
        .hasMessage("offset 1000001 is out of range; expected 0 to 1000000");
    assertThatThrownBy(() -> WaitingPage.parse("ten", null))
        .hasMessage("offset 'ten' is not a number; expected 0 to 1000000");
    assertThatThrownBy(() -> WaitingPage.parse(null, "99999999999999999999"))
        .hasMessage("limit '99999999999999999999' is not a number; expected 1 to 500");
  }
}

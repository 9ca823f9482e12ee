package dev.cipolicy.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.NewRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** A queue must have jobs to run, unless its settings say on purpose that it has none. */
class QueueSettingsTest {

  @Test
  void settingsWithoutBenchmarkGroupsOrTargetsAreRejected() {
    assertThatThrownBy(() -> QueueSettings.builder().addCollectorTargets(CollectorTarget.required("x86")).build())
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessageStartingWith("queue settings: benchmarkGroups is empty; expected at least one default benchmark"
            + " group");
    assertThatThrownBy(() -> QueueSettings.builder().addBenchmarkGroups("compile").build())
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessageStartingWith("queue settings: collectorTargets is empty; expected at least one collector target");
    assertThatThrownBy(() -> QueueSettings.builder().noJobs(true).addBenchmarkGroups("compile").build())
        .isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("queue settings: noJobs is set, but there are 1 benchmark groups and 0 collector targets;"
            + " expected none (or noJobs unset)");
  }

  @Test
  void aQueueWithoutJobsIsAnExplicitChoice() {
    QueueSettings settings = QueueSettings.withoutJobs();
    assertThat(settings.noJobs()).isTrue();
    JobQueue queue = JobQueue.inMemory(Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC), settings);
    queue.submit(NewRequest.master("m1", null));
    assertThat(queue.tick().completed()).hasSize(1);
  }
}

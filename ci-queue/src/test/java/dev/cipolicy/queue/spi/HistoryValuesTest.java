package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.Job;
import dev.cipolicy.queue.model.JobId;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Outcome;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The values of the history and of purging: valid when built, with single-line messages otherwise. */
class HistoryValuesTest {
  private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");

  private static Request completed(long id, Instant at) {
    return Request.created(RequestId.of(id), NewRequest.master("m" + id, null), T0).started(T0, null)
        .completed(Outcome.SUCCESS, at);
  }

  @Test
  void aCursorPrecedesWhatCompletedEarlierOrThenWithASmallerId() {
    HistoryCursor cursor = HistoryCursor.after(completed(5, T0.plusSeconds(10)));
    assertThat(cursor).isEqualTo(new HistoryCursor(T0.plusSeconds(10), RequestId.of(5)));
    assertThat(cursor.precedes(completed(9, T0.plusSeconds(9)))).isTrue();
    assertThat(cursor.precedes(completed(4, T0.plusSeconds(10)))).isTrue();
    assertThat(cursor.precedes(completed(5, T0.plusSeconds(10)))).isFalse();
    assertThat(cursor.precedes(completed(6, T0.plusSeconds(10)))).isFalse();
    assertThat(cursor.precedes(completed(1, T0.plusSeconds(11)))).isFalse();
    Request open = Request.created(RequestId.of(7), NewRequest.master("o", null), T0);
    assertThatThrownBy(() -> HistoryCursor.after(open)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("a history cursor is placed after a completed request; master o is artifacts_ready");
  }

  @Test
  void anEntryHoldsACompletedRequestAndOnlyFailedJobs() {
    Request r = completed(1, T0);
    Job queued = Job.created(JobId.of(3), r.id(), JobSpec.required("compile", "x86"), T0);
    assertThatThrownBy(() -> new HistoryEntry(r, List.of(queued))).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("the failed jobs of a history entry are failed; job 3 is queued");
    Request open = Request.created(RequestId.of(2), NewRequest.master("o", null), T0);
    assertThatThrownBy(() -> new HistoryEntry(open, List.of())).isInstanceOf(InvalidQueueInputException.class)
        .hasMessageContaining("a history entry holds a completed request");
    assertThat(new HistoryEntry(r, List.of()).errors()).isEmpty();
  }

  @Test
  void aPageHasANextCursorOnlyWhenMoreWasRead() {
    List<HistoryEntry> three = List.of(new HistoryEntry(completed(3, T0.plusSeconds(2)), List.of()),
        new HistoryEntry(completed(2, T0.plusSeconds(1)), List.of()),
        new HistoryEntry(completed(1, T0), List.of()));
    HistoryPage full = HistoryPage.of(three, 3);
    assertThat(full.entries()).hasSize(3);
    assertThat(full.next()).isEmpty();
    HistoryPage cut = HistoryPage.of(three, 2);
    assertThat(cut.entries()).hasSize(2);
    assertThat(cut.next()).contains(new HistoryCursor(T0.plusSeconds(1), RequestId.of(2)));
    assertThat(HistoryPage.checkedLimit(1)).isEqualTo(1);
    assertThatThrownBy(() -> HistoryPage.checkedLimit(-3)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("history page size -3 is out of range; expected 1 to 500");
  }

  @Test
  void purgeResultsCountWhatWent() {
    assertThat(PurgeResult.unchanged(PurgeResult.Status.NOT_FOUND, Optional.empty()).jobsRemoved()).isZero();
    assertThatThrownBy(() -> PurgeResult.builder().status(PurgeResult.Status.PURGED).jobsRemoved(-1).build())
        .isInstanceOf(InvalidQueueInputException.class);
  }
}

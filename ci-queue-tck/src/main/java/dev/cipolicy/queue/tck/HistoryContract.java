package dev.cipolicy.queue.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.queue.model.Claim;
import dev.cipolicy.queue.model.Failure;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import dev.cipolicy.queue.model.JobFailure;
import dev.cipolicy.queue.model.JobSpec;
import dev.cipolicy.queue.model.NewRequest;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.model.RequestId;
import dev.cipolicy.queue.spi.CompletionResult;
import dev.cipolicy.queue.spi.HistoryPage;
import dev.cipolicy.queue.spi.LeaseStatus;
import dev.cipolicy.queue.spi.StartCommand;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit's contract for the history: completed requests listed newest first (completion instant, then id),
 * each with its failed jobs' errors, paged by keyset so that pages neither repeat nor skip a request, also
 * when several completed at the same instant or more complete between two pages.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "History" group.
 */
abstract class HistoryContract extends KitGroup {

  HistoryContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  /**
   * Submits, starts (cap 100, straight through the store) and completes a request; with {@code failing}, it
   * gets two jobs on {@code x86}, one failing permanently with that detail and one succeeding.
   */
  private Request completed(String tag, @Nullable String failing) {
    Request r = submit(NewRequest.master(tag, null));
    List<JobSpec> jobs = failing == null ? List.of()
        : List.of(JobSpec.required("compile", "x86"), JobSpec.required("runtime", "x86"));
    StartResult started = store.startRequest(StartCommand.builder().requestId(r.id()).jobs(jobs).maxInProgress(100)
        .build());
    assertThat(started.status()).isEqualTo(StartResult.Status.STARTED);
    if (failing != null) {
      Claim first = claimOne("c1");
      assertThat(queue.fail(first.lease(), Failure.permanent(failing)).status()).isEqualTo(LeaseStatus.OK);
      Claim second = claimOne("c1");
      assertThat(queue.complete(second.lease()).status()).isEqualTo(LeaseStatus.OK);
    }
    CompletionResult done = store.completeIfDone(r.id());
    assertThat(done.status()).as("completion of %s", tag).isEqualTo(CompletionResult.Status.COMPLETED);
    return done.request().orElseThrow();
  }

  /** Every page of the history at the given size, in order. */
  private List<HistoryPage> pages(int limit) {
    List<HistoryPage> pages = new ArrayList<>();
    HistoryCursor after = null;
    do {
      HistoryPage page = store.history(limit, after);
      pages.add(page);
      after = page.next().orElse(null);
      assertThat(pages).as("pages of %d", limit).hasSizeLessThan(100);
    } while (after != null);
    return pages;
  }

  private static List<RequestId> ids(List<HistoryPage> pages) {
    List<RequestId> out = new ArrayList<>();
    pages.forEach(p -> p.entries().forEach(e -> out.add(e.request().id())));
    return out;
  }

  private static List<RequestId> newestFirst(List<Request> completed) {
    return completed.stream().sorted(Comparator.comparing((Request r) -> r.finishedAt().orElseThrow())
        .thenComparing(Request::id).reversed()).map(Request::id).toList();
  }

  @Test
  @DisplayName("completed requests newest first, paged across ties in completion time, with their errors")
  void newestFirstAcrossPages() {
    register("c1", "x86");
    List<Request> completed = new ArrayList<>();
    for (int i = 1; i <= 13; i++) {
      completed.add(completed("h" + i, i % 4 == 0 ? "boom " + i : null));
      if (i % 5 == 0) {
        clock.advance(Duration.ofSeconds(1)); // five requests complete at each instant
      }
    }
    Request cancelled = submit(NewRequest.master("cancelled", null));
    queue.cancel(cancelled.id(), "superseded");
    submit(NewRequest.master("open", null));

    List<HistoryPage> pages = pages(4);
    assertThat(pages).extracting(p -> p.entries().size()).containsExactly(4, 4, 4, 1);
    assertThat(ids(pages)).as("every completed request once, newest first").isEqualTo(newestFirst(completed));
    assertThat(pages.get(0).entries().get(0).request().tag()).contains("h13");
    // A page boundary inside a tie: the last entry of page 1 and the first of page 2 completed together.
    assertThat(pages.get(0).entries().get(3).request().finishedAt())
        .isEqualTo(pages.get(1).entries().get(0).request().finishedAt());
    assertThat(pages.get(3).next()).isEmpty();
    assertThat(pages.get(0).next()).contains(HistoryCursor.after(pages.get(0).entries().get(3).request()));

    List<HistoryEntry> all = pages(500).get(0).entries();
    assertThat(all).hasSize(13);
    for (HistoryEntry entry : all) {
      int i = Integer.parseInt(entry.request().tag().orElseThrow().substring(1));
      if (i % 4 == 0) {
        assertThat(entry.errors()).as("errors of h%d", i).hasSize(1);
        JobFailure error = entry.errors().get(0);
        assertThat(error.reason()).isEqualTo(JobFailure.Reason.PERMANENT);
        assertThat(error.detail()).contains("boom " + i);
        assertThat(entry.failedJobs().get(0).spec().benchmarkGroup()).isEqualTo("compile");
      } else {
        assertThat(entry.failedJobs()).as("errors of h%d", i).isEmpty();
      }
      assertThat(entry.request()).isEqualTo(reload(entry.request()));
    }
  }

  @Test
  @DisplayName("a page is exactly full when nothing follows; a cursor is not moved by later completions")
  void exactPagesAndLaterCompletions() {
    register("c1", "x86");
    List<Request> completed = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      completed.add(completed("e" + i, null));
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(store.history(12, null).next()).isEmpty();
    assertThat(store.history(11, null).next()).isPresent();
    HistoryPage first = store.history(5, null);
    clock.advance(Duration.ofSeconds(1));
    Request later = completed("later", "late failure");
    HistoryPage second = store.history(5, first.next().orElseThrow());
    HistoryPage third = store.history(5, second.next().orElseThrow());
    List<RequestId> seen = ids(List.of(first, second, third));
    assertThat(seen).isEqualTo(newestFirst(completed)).doesNotContain(later.id());
    assertThat(third.next()).isEmpty();
    assertThat(store.history(1, null).entries()).extracting(e -> e.request().id()).containsExactly(later.id());
  }

  @Test
  @DisplayName("an empty history is one empty page; page sizes outside 1 to 500 are refused")
  void emptyAndLimits() {
    assertThat(store.history(10, null).entries()).isEmpty();
    assertThat(store.history(10, null).next()).isEmpty();
    assertThat(store.history(HistoryPage.MAX_LIMIT, null).entries()).isEmpty();
    assertThatThrownBy(() -> store.history(0, null)).isInstanceOf(InvalidQueueInputException.class)
        .hasMessage("history page size 0 is out of range; expected 1 to 500");
    assertThatThrownBy(() -> store.history(HistoryPage.MAX_LIMIT + 1, null))
        .isInstanceOf(InvalidQueueInputException.class).hasMessageContaining("501");
  }
}

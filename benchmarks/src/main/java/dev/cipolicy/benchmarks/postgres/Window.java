package dev.cipolicy.benchmarks.postgres;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The measured window of a drain: it opens when the {@code lead}-th completion is counted (at the start when
 * the lead is 0) and closes when the last one is. The completion that crosses a boundary reads the clock and
 * the client-side statement counts, so the window covers steady-state work only: every pooled connection has
 * by then run its statements often enough for the driver to use server-side prepared statements and for its
 * server session to have loaded the catalog entries it needs, which is where a long-running collector lives.
 */
final class Window {
  private final long lead;
  private final long total;
  private final CountingDataSource counting;
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong openedAt = new AtomicLong();
  private final AtomicLong closedAt = new AtomicLong();
  private final AtomicLong countAtOpen = new AtomicLong();
  private final AtomicReference<CountingDataSource.Counts> openCounts = new AtomicReference<>();
  private final AtomicReference<CountingDataSource.Counts> closeCounts = new AtomicReference<>();

  Window(long lead, long total, CountingDataSource counting) {
    if (lead < 0 || lead >= total) {
      throw new IllegalArgumentException("the lead must be at least 0 and below the run's " + total + " jobs, got "
          + lead);
    }
    this.lead = lead;
    this.total = total;
    this.counting = counting;
  }

  /** Call once before the workers start: opens the window now when there is no lead. */
  void open() {
    if (lead == 0) {
      openCounts.set(counting.counts());
      openedAt.set(System.nanoTime());
    }
  }

  /** Counts completions; the call that crosses the lead opens the window, the one that reaches the total closes it. */
  void completed(long n) {
    long after = completed.addAndGet(n);
    long before = after - n;
    if (lead > 0 && before < lead && after >= lead) {
      openedAt.set(System.nanoTime());
      openCounts.set(counting.counts());
      countAtOpen.set(after);
    }
    if (before < total && after >= total) {
      closedAt.set(System.nanoTime());
      closeCounts.set(counting.counts());
    }
  }

  /** Completions inside the window (a batch that crosses the lead counts before it). */
  long jobs() {
    return total - countAtOpen.get();
  }

  long count() {
    return completed.get();
  }

  double seconds() {
    return (closedAt.get() - openedAt.get()) / 1e9;
  }

  CountingDataSource.Counts client() {
    CountingDataSource.Counts from = openCounts.get();
    CountingDataSource.Counts to = closeCounts.get();
    if (from == null || to == null) {
      throw new IllegalStateException("the measured window did not open and close: " + completed.get() + " of "
          + total + " completions");
    }
    return to.minus(from);
  }
}

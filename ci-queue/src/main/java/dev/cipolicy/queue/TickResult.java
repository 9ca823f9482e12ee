package dev.cipolicy.queue;

import dev.cipolicy.api.Explanation;
import dev.cipolicy.queue.model.Request;
import dev.cipolicy.queue.spi.ExpiryResult;
import dev.cipolicy.queue.spi.ImpossibleRow;
import dev.cipolicy.queue.spi.StartResult;
import java.time.Instant;
import java.util.List;

/**
 * What one site tick did: the expired leases it processed, the requests it completed (with the
 * comparison events to post), the requests it started (with their jobs and backfill), and why.
 *
 * @param at the tick's instant
 * @param expired the leases processed
 * @param completed the requests this tick completed, in order
 * @param events the comparison events of the completed master and try requests
 * @param started the requests this tick started, with their jobs
 * @param explanation why: completions, pending jobs, starts, the cap, an empty queue, impossible rows
 * @param impossibleRows rows the tick met that no legal sequence of operations produces (edited by hand):
 *     it left them unchanged and went on with the other requests; each has a {@code queue.impossible-row}
 *     reason in the explanation
 */
public record TickResult(Instant at, ExpiryResult expired, List<Request> completed, List<ComparisonEvent> events,
    List<StartResult> started, Explanation explanation, List<ImpossibleRow> impossibleRows) {

  /** Copies the lists. */
  public TickResult {
    completed = List.copyOf(completed);
    events = List.copyOf(events);
    started = List.copyOf(started);
    impossibleRows = List.copyOf(impossibleRows);
  }

  /**
   * A tick that met no impossible row.
   *
   * @param at the tick's instant
   * @param expired the leases processed
   * @param completed the requests completed, in order
   * @param events the comparison events
   * @param started the requests started
   * @param explanation why
   */
  public TickResult(Instant at, ExpiryResult expired, List<Request> completed, List<ComparisonEvent> events,
      List<StartResult> started, Explanation explanation) {
    this(at, expired, completed, events, started, explanation, List.of());
  }

  /**
   * Whether the tick changed nothing.
   *
   * @return true when nothing expired, completed or started
   */
  public boolean idle() {
    return expired.isEmpty() && completed.isEmpty() && started.isEmpty();
  }
}

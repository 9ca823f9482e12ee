package dev.cipolicy.queue;

import dev.cipolicy.queue.spi.ImpossibleRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The status view of the queue at one instant: each request in order with its position, how many
 * requests are ahead of it and about when it completes, then the try requests waiting for artifacts.
 *
 * @param at the instant of the view
 * @param entries the entries in queue order, waiting requests last
 * @param impossibleRows request rows left out of the view because no legal sequence of operations produces
 *     them (edited by hand)
 */
public record QueueStatus(Instant at, List<Entry> entries, List<ImpossibleRow> impossibleRows) {

  /** Copies the lists. */
  public QueueStatus {
    entries = List.copyOf(entries);
    impossibleRows = List.copyOf(impossibleRows);
  }

  /**
   * A view without impossible rows.
   *
   * @param at the instant of the view
   * @param entries the entries in queue order, waiting requests last
   */
  public QueueStatus(Instant at, List<Entry> entries) {
    this(at, entries, List.of());
  }

  /**
   * This view with impossible rows reported.
   *
   * @param rows the rows left out of the view
   * @return the view
   */
  public QueueStatus withImpossibleRows(List<ImpossibleRow> rows) {
    return new QueueStatus(at, entries, rows);
  }

  /**
   * One request in the status view.
   *
   * @param position its 1-based position in the order; 0 for a request waiting for artifacts
   * @param placed the request and why it is where it is
   * @param ahead how many requests come before it (in progress ones included)
   * @param eta the estimated time until it completes; absent while waiting for artifacts
   */
  public record Entry(int position, QueueOrder.Placed placed, int ahead, Optional<Duration> eta) {

    /**
     * One line for a status page.
     *
     * @return e.g. {@code try #42 3f9a0c1: 2 ahead, done in about 2 h 30 min (after parent 9b2e1d0 (level 1))}
     */
    public String summary() {
      StringBuilder sb = new StringBuilder(placed.request().label()).append(": ");
      if (eta.isEmpty()) {
        return sb.append("waiting for artifacts").toString();
      }
      if (placed.section() == QueueOrder.Section.IN_PROGRESS) {
        sb.append("in progress");
      } else {
        sb.append(ahead).append(" ahead");
      }
      return sb.append(", done in about ").append(human(eta.get())).append(" (").append(placed.reason())
          .append(')').toString();
    }
  }

  /**
   * A duration in words, rounded down to minutes.
   *
   * @param d a duration
   * @return e.g. {@code less than a minute}, {@code 45 min}, {@code 2 h}, {@code 2 h 30 min}
   */
  static String human(Duration d) {
    long minutes = d.toMinutes();
    if (minutes < 1) {
      return "less than a minute";
    }
    if (minutes < 60) {
      return minutes + " min";
    }
    long hours = minutes / 60;
    long rest = minutes % 60;
    return rest == 0 ? hours + " h" : hours + " h " + rest + " min";
  }

  /**
   * The status lines, one per entry, then one per impossible row.
   *
   * @return the summaries in order, then the impossible rows' messages
   */
  public List<String> lines() {
    List<String> lines = new ArrayList<>(entries.size() + impossibleRows.size());
    entries.forEach(e -> lines.add(e.summary()));
    impossibleRows.forEach(r -> lines.add(r.message() + " (left out of the queue)"));
    return List.copyOf(lines);
  }
}

package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.HistoryCursor;
import dev.cipolicy.queue.model.HistoryEntry;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.util.List;
import java.util.Optional;

/**
 * One page of the history of completed requests, newest first ({@link QueueStore#history}), and where the
 * next page starts when more requests completed before the last entry.
 *
 * @param entries the completed requests of the page, newest first (by completion instant, then id, both
 *     descending), each with its errors
 * @param next the cursor of the next page; absent when this page is the last
 */
public record HistoryPage(List<HistoryEntry> entries, Optional<HistoryCursor> next) {

  /** The largest page a store returns: {@value}. */
  public static final int MAX_LIMIT = 500;

  /** Checks the components and copies the list. */
  public HistoryPage {
    entries = List.copyOf(Checks.present(entries, "history entries"));
    Checks.present(next, "next history cursor");
  }

  /**
   * Checks a page size: between 1 and {@link #MAX_LIMIT}.
   *
   * @param limit the requested page size
   * @return the size
   * @throws InvalidQueueInputException when it is outside that range
   */
  public static int checkedLimit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidQueueInputException("history page size " + limit + " is out of range; expected 1 to "
          + MAX_LIMIT);
    }
    return limit;
  }

  /**
   * A page from the first {@code limit + 1} matching requests' entries a store read: the first
   * {@code limit}, and a cursor after the last of them when one more was read.
   *
   * @param read up to {@code limit + 1} entries, newest first
   * @param limit the page size
   * @return the page
   */
  public static HistoryPage of(List<HistoryEntry> read, int limit) {
    Checks.present(read, "history entries");
    if (read.size() <= limit) {
      return new HistoryPage(read, Optional.empty());
    }
    List<HistoryEntry> page = read.subList(0, limit);
    return new HistoryPage(page, Optional.of(HistoryCursor.after(page.get(limit - 1).request())));
  }
}

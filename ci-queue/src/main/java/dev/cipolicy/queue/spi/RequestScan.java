package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Request;
import java.util.List;

/**
 * A read of many requests that keeps going past impossible rows: the requests that could be read, by id,
 * and the rows that could not (see {@link ImpossibleRow}). A store whose rows cannot be impossible (in
 * memory) always has an empty {@link #impossibleRows()}.
 *
 * @param requests the requests read, by id
 * @param impossibleRows the rows left out because no legal sequence of operations produces them
 */
public record RequestScan(List<Request> requests, List<ImpossibleRow> impossibleRows) {

  /** Copies the lists. */
  public RequestScan {
    requests = List.copyOf(Checks.present(requests, "scanned requests"));
    impossibleRows = List.copyOf(Checks.present(impossibleRows, "impossible rows"));
  }

  /**
   * A scan without impossible rows.
   *
   * @param requests the requests
   * @return the scan
   */
  public static RequestScan of(List<Request> requests) {
    return new RequestScan(requests, List.of());
  }
}

package dev.cipolicy.gate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * History as plain values: for tests, replays and hosts that read their baselines themselves. Holds the
 * trusted and recent samples of the coordinates of one series.
 *
 * <pre>{@code
 * GateHistory h = GateHistory.of(series, Map.of(coordinate, new CoordinateHistory(trusted, recent)));
 * }</pre>
 *
 * @param series the series the history belongs to
 * @param coordinates the history of each coordinate
 */
public record GateHistory(SeriesKey series, Map<Coordinate, CoordinateHistory> coordinates)
    implements HistorySource {

  /** Copies the map. */
  public GateHistory {
    coordinates = Map.copyOf(coordinates);
  }

  /**
   * A history of one series.
   *
   * @param series the series
   * @param coordinates the history of each coordinate
   * @return the history
   */
  public static GateHistory of(SeriesKey series, Map<Coordinate, CoordinateHistory> coordinates) {
    return new GateHistory(series, coordinates);
  }

  /**
   * No history at all: every coordinate is cold.
   *
   * @param series the series
   * @return an empty history
   */
  public static GateHistory empty(SeriesKey series) {
    return new GateHistory(series, Map.of());
  }

  @Override
  public Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> wanted, int trustedLimit,
      int recentLimit) {
    Map<Coordinate, CoordinateHistory> out = new LinkedHashMap<>();
    if (!series.equals(this.series)) {
      return out;
    }
    for (Coordinate c : wanted) {
      CoordinateHistory h = coordinates.get(c);
      if (h != null) {
        out.put(c, new CoordinateHistory(head(h.trusted(), trustedLimit), head(h.recent(), recentLimit)));
      }
    }
    return out;
  }

  private static List<HistorySample> head(List<HistorySample> list, int n) {
    return list.size() <= n ? list : list.subList(0, n);
  }
}

package dev.cipolicy.gate;

import java.util.Map;
import java.util.Set;

/**
 * Where the evaluator reads history from: a {@link MetricHistoryStore}, or a {@link GateHistory} of
 * values in memory. Reading is all it can do, which is why evaluation can never write.
 */
@FunctionalInterface
public interface HistorySource {
  /**
   * Reads the history of some coordinates of a series.
   *
   * @param series the series
   * @param coordinates the coordinates wanted
   * @param trustedLimit at most this many trusted samples per coordinate
   * @param recentLimit at most this many recent samples of any trust per coordinate
   * @return the history of each coordinate; a coordinate left out has no history
   */
  Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> coordinates, int trustedLimit,
      int recentLimit);
}

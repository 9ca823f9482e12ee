package dev.cipolicy.gate;

import java.util.List;
import java.util.Optional;

/**
 * The points a test recorded for one metric, in the order recorded, or the reason they could not be
 * read. Points may repeat a step, skip steps or hold non-finite values; selection reports each of those
 * as an {@code ERROR} verdict.
 *
 * @param points the points in record order; empty when malformed
 * @param malformed why the series could not be read, if it could not
 */
public record MetricSeries(List<MetricPoint> points, Optional<String> malformed) {
  /** Copies the list and checks that a malformed series has no points. */
  public MetricSeries {
    points = List.copyOf(points);
    if (malformed.isPresent() && !points.isEmpty()) {
      throw new IllegalArgumentException("a malformed series has no points");
    }
  }

  /**
   * A series of points.
   *
   * @param points the points in record order
   * @return the series
   */
  public static MetricSeries of(List<MetricPoint> points) {
    return new MetricSeries(points, Optional.empty());
  }

  /**
   * A series that could not be read.
   *
   * @param reason what was wrong, e.g. {@code point 3 is not a [step, value] pair}
   * @return the series
   */
  public static MetricSeries malformed(String reason) {
    return new MetricSeries(List.of(), Optional.of(reason));
  }
}

package dev.cipolicy.gate;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The largest metric record the gate judges. A record beyond a limit is not judged at all: it counts as
 * unreadable, so every gate of the test becomes one {@code ERROR} naming the limit, and a baseline-writing run
 * writes an empty, untrusted run — the same outcome as for a record that is not JSON. The limits bound the
 * gate's time and memory (a record of {@value #MAX_POINTS} points is judged in well under a second; the
 * unbounded record it replaces could take minutes and gigabytes).
 *
 * <ul>
 *   <li>{@link #MAX_BYTES}: the size of a record file, checked by a reader before parsing (the CLI reads at most
 *       one byte more than the limit);
 *   <li>{@link #MAX_METRICS}: the number of metric series in a record;
 *   <li>{@link #MAX_POINTS}: the number of points of all series together.
 * </ul>
 */
public final class RecordLimits {
  /** The largest record file: 16 MiB. */
  public static final long MAX_BYTES = 16L * 1024 * 1024;
  /** The most metric series in one record. */
  public static final int MAX_METRICS = 10_000;
  /** The most points in one record, all series together. */
  public static final int MAX_POINTS = 100_000;

  private RecordLimits() {}

  /**
   * Why a record is beyond a limit, if it is.
   *
   * @param record the record
   * @return e.g. {@code the record has more than 100,000 points, the limit (1,000,000)}; empty when within
   */
  public static Optional<String> violation(MetricRecord record) {
    Map<String, MetricSeries> metrics = record.metrics();
    if (metrics.size() > MAX_METRICS) {
      return Optional.of(tooManyMetrics() + " (" + count(metrics.size()) + ")");
    }
    long points = 0;
    for (MetricSeries s : metrics.values()) {
      points += s.points().size();
    }
    return points > MAX_POINTS ? Optional.of(tooManyPoints() + " (" + count(points) + ")") : Optional.empty();
  }

  /**
   * The message for a record with too many series.
   *
   * @return {@code the record has more than 10,000 metrics, the limit}
   */
  public static String tooManyMetrics() {
    return "the record has more than " + count(MAX_METRICS) + " metrics, the limit";
  }

  /**
   * The message for a record with too many points.
   *
   * @return {@code the record has more than 100,000 points, the limit}
   */
  public static String tooManyPoints() {
    return "the record has more than " + count(MAX_POINTS) + " points, the limit";
  }

  /**
   * The message for a record file that is too large.
   *
   * @param file the file as named by the user
   * @return the message
   */
  public static String tooLarge(String file) {
    return "record file " + file + " is larger than the limit of " + count(MAX_BYTES) + " bytes (16 MiB)";
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}

package dev.cipolicy.gate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a test run recorded: metric key → series of (step, value) points, or why the record as a whole
 * could not be read. Evaluating a malformed record never throws; its gates get {@code ERROR} verdicts.
 *
 * <pre>{@code
 * MetricRecord record = MetricRecord.builder()
 *     .point("train/grad_norm", 0, 1.02).point("train/grad_norm", 1, 0.97)
 *     .build();
 * }</pre>
 *
 * @param metrics the series by metric key, in record order
 * @param unreadable why the record could not be read at all, if it could not
 */
public record MetricRecord(Map<String, MetricSeries> metrics, Optional<String> unreadable) {
  /** Copies the map, keeping its order. */
  public MetricRecord {
    metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
  }

  /**
   * A readable record.
   *
   * @param metrics the series by metric key
   * @return the record
   */
  public static MetricRecord of(Map<String, MetricSeries> metrics) {
    return new MetricRecord(metrics, Optional.empty());
  }

  /**
   * A record that could not be read (missing file, not JSON, wrong shape).
   *
   * @param reason what was wrong
   * @return the record
   */
  public static MetricRecord unreadable(String reason) {
    return new MetricRecord(Map.of(), Optional.of(reason));
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a record point by point, keeping the order in which metrics first appear. */
  public static final class Builder {
    private final Map<String, List<MetricPoint>> points = new LinkedHashMap<>();
    private final Map<String, String> malformed = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Appends a point to a metric's series.
     *
     * @param metric the metric key
     * @param step the step, {@code ≥ 0}
     * @param value the value, possibly non-finite
     * @return this builder
     */
    public Builder point(String metric, int step, double value) {
      points.computeIfAbsent(metric, k -> new ArrayList<>()).add(new MetricPoint(step, value));
      return this;
    }

    /**
     * Appends points with steps {@code 0, 1, 2, ...}.
     *
     * @param metric the metric key
     * @param values the values, in step order
     * @return this builder
     */
    public Builder series(String metric, double... values) {
      List<MetricPoint> list = points.computeIfAbsent(metric, k -> new ArrayList<>());
      for (int i = 0; i < values.length; i++) {
        list.add(new MetricPoint(i, values[i]));
      }
      return this;
    }

    /**
     * Marks a metric's series as unreadable.
     *
     * @param metric the metric key
     * @param reason what was wrong
     * @return this builder
     */
    public Builder malformed(String metric, String reason) {
      points.remove(metric);
      malformed.put(metric, reason);
      return this;
    }

    /**
     * Builds the record.
     *
     * @return the record
     */
    public MetricRecord build() {
      Map<String, MetricSeries> m = new LinkedHashMap<>();
      points.forEach((k, v) -> m.put(k, MetricSeries.of(v)));
      malformed.forEach((k, v) -> m.put(k, MetricSeries.malformed(v)));
      return of(m);
    }
  }
}

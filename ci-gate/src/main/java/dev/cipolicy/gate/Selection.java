package dev.cipolicy.gate;

import dev.cipolicy.api.gate.GateSteps;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The selection rules: which values of a record a gate judges, and the errors. Never throws
 * on any record.
 */
final class Selection {
  /** Beyond this many missing step indices, an {@code all} gate reports one whole-gate error. */
  static final int MAX_MISSING_REPORTED = 1000;

  private Selection() {}

  /** What selection yields for one coordinate (or a whole gate). */
  sealed interface Item permits Selected, Failed {}

  /** A finite value selected at a coordinate, to be judged. */
  record Selected(GateSpec spec, Coordinate coordinate, double value) implements Item {}

  /** A selection error, already a verdict. */
  record Failed(CoordinateVerdict verdict) implements Item {}

  private static Failed error(GateSpec spec, OptionalInt step, String message) {
    return new Failed(CoordinateVerdict.error(spec, step, message));
  }

  /**
   * Selects the values of one gate: the selected values and the errors, in step order ({@code all}) or in
   * declaration order (a list).
   */
  static List<Item> select(GateSpec spec, MetricRecord record) {
    String metric = spec.metricKey();
    if (record.unreadable().isPresent()) {
      return List.of(error(spec, OptionalInt.empty(),
          "the record is unreadable: " + record.unreadable().get()));
    }
    MetricSeries series = record.metrics().get(metric);
    if (series == null) {
      return List.of(error(spec, OptionalInt.empty(), "metric '" + metric
          + "' is not in the record"));
    }
    if (series.malformed().isPresent()) {
      return List.of(error(spec, OptionalInt.empty(), "metric '" + metric
          + "' is malformed: " + series.malformed().get()));
    }
    List<MetricPoint> points = series.points();
    if (spec.steps() instanceof GateSteps.Last) {
      OptionalInt at = OptionalInt.of(Coordinate.LAST_STEP);
      if (points.isEmpty()) {
        return List.of(error(spec, at, "metric '" + metric + "' has no points"));
      }
      MetricPoint last = points.get(points.size() - 1);
      if (!Double.isFinite(last.value())) {
        return List.of(error(spec, at, "the last point of '" + metric + "' (step " + last.step()
            + ") is not finite: " + Numbers.human(last.value())));
      }
      return List.of(new Selected(spec, Coordinate.of(spec, Coordinate.LAST_STEP), last.value()));
    }
    if (spec.steps() instanceof GateSteps.All) {
      return all(spec, points);
    }
    return indices(spec, ((GateSteps.Indices) spec.steps()).steps(), points);
  }

  private static List<Item> all(GateSpec spec, List<MetricPoint> points) {
    String metric = spec.metricKey();
    if (points.isEmpty()) {
      return List.of(error(spec, OptionalInt.empty(), "metric '" + metric + "' has no points"));
    }
    MetricPoint[] sorted = points.toArray(MetricPoint[]::new);
    Arrays.sort(sorted, Comparator.comparingInt(MetricPoint::step)); // stable: record order within a step
    int max = sorted[sorted.length - 1].step();
    long distinct = Arrays.stream(sorted).mapToInt(MetricPoint::step).distinct().count();
    long missing = (long) max + 1 - distinct;
    if (missing > MAX_MISSING_REPORTED) {
      return List.of(error(spec, OptionalInt.empty(), "metric '" + metric + "' is missing "
          + missing + " of the step indices 0.." + max));
    }
    List<Item> out = new ArrayList<>();
    int expected = 0;
    int i = 0;
    while (i < sorted.length) {
      int step = sorted[i].step();
      for (; expected < step; expected++) {
        out.add(error(spec, OptionalInt.of(expected), "step " + expected + " of '" + metric
            + "' is missing (the series has steps up to " + max + ")"));
      }
      int j = i;
      while (j < sorted.length && sorted[j].step() == step) {
        j++;
      }
      if (j - i > 1) {
        out.add(error(spec, OptionalInt.of(step), "step " + step + " of '" + metric
            + "' appears " + (j - i) + " times"));
      } else if (!Double.isFinite(sorted[i].value())) {
        out.add(error(spec, OptionalInt.of(step), "step " + step + " of '" + metric
            + "' is not finite: " + Numbers.human(sorted[i].value())));
      } else {
        out.add(new Selected(spec, Coordinate.of(spec, step), sorted[i].value()));
      }
      expected = step + 1;
      i = j;
    }
    return out;
  }

  private static List<Item> indices(GateSpec spec, List<Integer> wanted, List<MetricPoint> points) {
    String metric = spec.metricKey();
    Map<Integer, List<MetricPoint>> byStep = new HashMap<>();
    for (MetricPoint p : points) {
      byStep.computeIfAbsent(p.step(), k -> new ArrayList<>()).add(p);
    }
    List<String> problems = new ArrayList<>();
    List<Item> out = new ArrayList<>();
    for (int step : wanted) {
      List<MetricPoint> at = byStep.getOrDefault(step, List.of());
      if (at.isEmpty()) {
        problems.add("step " + step + " is missing");
      } else if (at.size() > 1) {
        problems.add("step " + step + " appears " + at.size() + " times");
      } else if (!Double.isFinite(at.get(0).value())) {
        problems.add("step " + step + " is not finite: " + Numbers.human(at.get(0).value()));
      } else {
        out.add(new Selected(spec, Coordinate.of(spec, step), at.get(0).value()));
      }
    }
    if (!problems.isEmpty()) {
      return List.of(error(spec, OptionalInt.empty(), "steps " + spec.stepsKey() + " of '"
          + metric + "': " + String.join("; ", problems)));
    }
    return out;
  }
}

package dev.cipolicy.gate;

import dev.cipolicy.api.gate.Better;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/** Judges one selected value against its coordinate's history; shared by evaluation and replay. */
final class Judge {
  private Judge() {}

  static CoordinateVerdict judge(GateSpec spec, Coordinate c, double value, CoordinateHistory h, GateOptions o) {
    double[] trusted = new double[h.trusted().size()];
    for (int i = 0; i < trusted.length; i++) {
      trusted[i] = h.trusted().get(i).value();
    }
    Evidence e = apply(o.model(), spec, value, trusted);
    List<Evidence> advisories = new ArrayList<>();
    for (GateModel m : o.advisories()) {
      advisories.add(apply(m, spec, value, trusted));
    }
    Optional<Quarantine> q = e.status() == GateStatus.FAIL && o.levelShiftAfter() >= 2
        ? Optional.of(quarantine(c, e, h.recent(), o.levelShiftAfter()))
        : Optional.empty();
    return new CoordinateVerdict(c.metricKey(), c.stepsKey(), c.constraintKey(), OptionalInt.of(c.step()),
        e.status(), finding(e, spec.better()), OptionalDouble.of(value), Optional.of(e), Optional.empty(),
        advisories, q);
  }

  static Evidence apply(GateModel model, GateSpec spec, double value, double[] newestFirst) {
    return model.judge(spec.constraint(), value, newestFirst, Math.min(newestFirst.length, model.window()));
  }

  static Finding finding(Evidence e, Optional<Better> better) {
    Optional<Limit> side = e.violated();
    if (side.isEmpty()) {
      return Finding.NONE;
    }
    if (better.isEmpty()) {
      return Finding.OUT_OF_BAND;
    }
    boolean worse = (side.get() == Limit.UPPER) == (better.get() == Better.LOWER);
    return worse ? Finding.REGRESSION : Finding.ANOMALOUS_IMPROVEMENT;
  }

  /**
   * Counts the consecutive untrusted values beyond the same limit, newest first, and proposes a level
   * shift when {@code required} of them (the judged value included) agree: each lies inside the current
   * band moved to their mean.
   */
  static Quarantine quarantine(Coordinate c, Evidence e, List<HistorySample> recentNewestFirst, int required) {
    Limit side = e.binding().orElseThrow();
    double lower = e.lower().getAsDouble();
    double upper = e.upper().getAsDouble();
    List<Double> values = new ArrayList<>();
    values.add(e.value());
    List<RunId> runs = new ArrayList<>();
    for (HistorySample s : recentNewestFirst) {
      if (values.size() >= required) {
        break;
      }
      boolean beyond = side == Limit.UPPER ? s.value() > upper : s.value() < lower;
      if (s.trusted() || !beyond) {
        break;
      }
      values.add(s.value());
      runs.add(s.runId());
    }
    Optional<LevelShiftProposal> proposal = Optional.empty();
    if (values.size() >= required) {
      double sum = 0;
      for (double v : values) {
        sum += v;
      }
      double level = sum / values.size();
      double centre = e.centre().orElse((lower + upper) / 2);
      double below = centre - lower;
      double above = upper - centre;
      boolean agree = values.stream().allMatch(v -> v >= level - below && v <= level + above);
      if (agree) {
        proposal = Optional.of(new LevelShiftProposal(c, side, centre, level, runs));
      }
    }
    return new Quarantine(values.size(), required, proposal);
  }
}

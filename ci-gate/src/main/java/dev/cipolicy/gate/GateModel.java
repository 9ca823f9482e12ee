package dev.cipolicy.gate;

import dev.cipolicy.api.gate.GateConstraint;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * How a value is judged against its trusted history. {@link Band} is the reference behaviour;
 * the robust models ({@link MedianMad}, {@link IqrFence}, {@link AdjacentDelta}) estimate the noise from
 * the history itself, need a minimum history, and say {@code INCONCLUSIVE} when the history has zero
 * spread or is bimodal. Every model judges from the trusted history only, so a deviating value can never
 * widen its own band.
 *
 * <p>False alarms of the robust models with their default parameters, for independent Gaussian noise
 * (measured by simulation, and checked by {@code GateModelProperties}): at most 1.5 % of evaluations with
 * the minimum history of 10 values, at most 0.25 % with a full window of 20, and at most
 * {@value #DOCUMENTED_FALSE_ALARM_BOUND} on a long stationary series replayed with the model's own trust
 * decisions.
 */
public sealed interface GateModel permits GateModel.Band, GateModel.MedianMad, GateModel.IqrFence,
    GateModel.AdjacentDelta {

  /** The documented false-alarm bound of the default robust models on a replayed stationary Gaussian series. */
  double DOCUMENTED_FALSE_ALARM_BOUND = 0.01;

  /**
   * The model's name, as used on the command line and in explanations.
   *
   * @return e.g. {@code band}
   */
  String name();

  /**
   * How many of the newest trusted values the model uses.
   *
   * @return the window, at least 1
   */
  int window();

  /**
   * The least number of trusted values the model judges with; below it the status is
   * {@code INSUFFICIENT_HISTORY} (or {@code INACTIVE} with none).
   *
   * @return the minimum, between 1 and the window
   */
  int minHistory();

  /**
   * Judges a value.
   *
   * @param constraint the gate's constraint (only the band uses it)
   * @param value the finite value to judge
   * @param newestFirst trusted history values, newest first
   * @param n how many leading values of {@code newestFirst} to use, at most {@link #window()}
   * @return the evidence, with the status
   */
  Evidence judge(GateConstraint constraint, double value, double[] newestFirst, int n);

  /**
   * The reference band: reference = mean of the newest ≤ 20 trusted values, band
   * {@code [ref − max(rel_down·|ref|, abs_floor_down), ref + max(rel_up·|ref|, abs_floor_up)]}.
   *
   * @return the band model
   */
  static Band band() {
    return new Band(20);
  }

  /**
   * Median and MAD: limits {@code median ± 5 · 1.4826 · MAD} of the newest 20 trusted values, at least 10.
   *
   * @return the model with its default parameters
   */
  static MedianMad medianMad() {
    return new MedianMad(20, 10, 5);
  }

  /**
   * Tukey's far-out fence: limits {@code [Q1 − 3·IQR, Q3 + 3·IQR]} of the newest 20 trusted values, at
   * least 10.
   *
   * @return the model with its default parameters
   */
  static IqrFence iqrFence() {
    return new IqrFence(20, 10, 3);
  }

  /**
   * Noise from adjacent deltas: sigma {@code = median|Δ| / (0.6745·√2)} over the newest 20 trusted values
   * in time order, level = mean of the newest 5, limits {@code level ± 5·sigma·√(1 + 1/5)}; at least 10.
   * It tolerates a slow drift that would inflate a global spread.
   *
   * @return the model with its default parameters
   */
  static AdjacentDelta adjacentDelta() {
    return new AdjacentDelta(20, 10, 5, 5);
  }

  /**
   * The models with their default parameters, in documentation order.
   *
   * @return band, median-mad, iqr-fence, adjacent-delta
   */
  static List<GateModel> defaults() {
    return List.of(band(), medianMad(), iqrFence(), adjacentDelta());
  }

  /**
   * A model with its default parameters, by name.
   *
   * @param name {@code band}, {@code median-mad}, {@code iqr-fence} or {@code adjacent-delta}
   * @return the model, if the name is known
   */
  static Optional<GateModel> named(String name) {
    return defaults().stream().filter(m -> m.name().equals(name)).findFirst();
  }

  private static void checkWindow(int window, int minHistory, int leastMinimum) {
    if (window < 1 || minHistory < leastMinimum || minHistory > window) {
      throw new IllegalArgumentException("a model needs 1 <= window and " + leastMinimum
          + " <= min history <= window, got window " + window + " and min history " + minHistory);
    }
  }

  private static void checkPositive(String what, double v) {
    if (!(v > 0) || !Double.isFinite(v)) {
      throw new IllegalArgumentException(what + " must be a positive finite number, got " + v);
    }
  }

  private static String newest(int n) {
    return "the newest " + n + " trusted value" + (n == 1 ? "" : "s");
  }

  /** What every robust model checks before forming a band: history size, zero spread, bimodality. */
  private static Optional<Evidence> declined(String model, int minHistory, double value, int n, double centre,
      double spread, double[] sorted) {
    if (n < minHistory) {
      return Optional.of(Evidence.withoutBand(model, n + " trusted values; " + model + " needs " + minHistory,
          n, minHistory, value, OptionalDouble.empty(), OptionalDouble.empty(), Optional.empty()));
    }
    int split = Stats.bimodalSplit(sorted);
    if (split > 0) {
      return Optional.of(Evidence.withoutBand(model, newest(n) + " form two separated clusters of " + split
              + " and " + (n - split) + " values", n, minHistory, value, OptionalDouble.of(centre),
          OptionalDouble.of(spread), Optional.of(Inconclusive.BIMODAL)));
    }
    if (!(spread > 0)) {
      return Optional.of(Evidence.withoutBand(model, newest(n) + " have zero spread", n, minHistory, value,
          OptionalDouble.of(centre), OptionalDouble.of(0), Optional.of(Inconclusive.ZERO_SPREAD)));
    }
    return Optional.empty();
  }

  private static Evidence inactive(String model, int minHistory, double value) {
    return Evidence.withoutBand(model, "no trusted history (cold start)", 0, minHistory, value,
        OptionalDouble.empty(), OptionalDouble.empty(), Optional.empty());
  }

  /**
   * The reference band.
   *
   * @param window how many of the newest trusted values the reference averages (20 in the reference)
   */
  record Band(int window) implements GateModel {
    /** Validates the window. */
    public Band {
      checkWindow(window, 1, 1);
    }

    @Override
    public String name() {
      return "band";
    }

    @Override
    public int minHistory() {
      return 1;
    }

    @Override
    public Evidence judge(GateConstraint constraint, double value, double[] newestFirst, int n) {
      if (n == 0) {
        return inactive(name(), 1, value);
      }
      double ref = Stats.mean(newestFirst, n);
      if (Double.isInfinite(ref)) {
        ref = 0;
        for (int i = 0; i < n; i++) {
          ref += newestFirst[i] / n;
        }
      }
      double up = constraint.upTolerance(ref);
      double down = constraint.downTolerance(ref);
      String r = Numbers.human(ref);
      String basis = "reference " + r + " = mean of " + newest(n) + "; band [" + r + " − max("
          + Numbers.human(constraint.relDown().orElse(0)) + "·|" + r + "|, "
          + Numbers.human(constraint.absFloorDown().orElse(0)) + "), " + r + " + max("
          + Numbers.human(constraint.relUp().orElse(0)) + "·|" + r + "|, "
          + Numbers.human(constraint.absFloorUp().orElse(0)) + ")]";
      return Evidence.banded(name(), basis, n, 1, value, ref, OptionalDouble.empty(), ref - down, ref + up);
    }
  }

  /**
   * Median and median absolute deviation: limits {@code median ± z · 1.4826 · MAD}.
   *
   * @param window how many of the newest trusted values to use
   * @param minHistory the least number of trusted values to judge with, at least 3
   * @param z the half-width of the band in robust standard deviations
   */
  record MedianMad(int window, int minHistory, double z) implements GateModel {
    /** Validates the parameters. */
    public MedianMad {
      checkWindow(window, minHistory, 3);
      checkPositive("z", z);
    }

    @Override
    public String name() {
      return "median-mad";
    }

    @Override
    public Evidence judge(GateConstraint constraint, double value, double[] newestFirst, int n) {
      if (n == 0) {
        return inactive(name(), minHistory, value);
      }
      double[] s = Stats.sorted(newestFirst, n);
      double median = Stats.median(s);
      double sigma = 1.4826 * Stats.mad(newestFirst, n, median);
      Optional<Evidence> d = declined(name(), minHistory, value, n, median, sigma, s);
      if (d.isPresent()) {
        return d.get();
      }
      String basis = "median " + Numbers.human(median) + " and sigma " + Numbers.human(sigma)
          + " (1.4826·MAD) of " + newest(n) + "; limits median ± " + Numbers.human(z) + "·sigma";
      return Evidence.banded(name(), basis, n, minHistory, value, median, OptionalDouble.of(sigma),
          median - z * sigma, median + z * sigma);
    }
  }

  /**
   * Tukey's fence on the interquartile range: limits {@code [Q1 − k·IQR, Q3 + k·IQR]}; the centre is the
   * median and the spread the IQR.
   *
   * @param window how many of the newest trusted values to use
   * @param minHistory the least number of trusted values to judge with, at least 3
   * @param k the fence factor (1.5 inner, 3 far-out)
   */
  record IqrFence(int window, int minHistory, double k) implements GateModel {
    /** Validates the parameters. */
    public IqrFence {
      checkWindow(window, minHistory, 3);
      checkPositive("k", k);
    }

    @Override
    public String name() {
      return "iqr-fence";
    }

    @Override
    public Evidence judge(GateConstraint constraint, double value, double[] newestFirst, int n) {
      if (n == 0) {
        return inactive(name(), minHistory, value);
      }
      double[] s = Stats.sorted(newestFirst, n);
      double q1 = Stats.quantile(s, .25);
      double q3 = Stats.quantile(s, .75);
      double iqr = q3 - q1;
      Optional<Evidence> d = declined(name(), minHistory, value, n, Stats.median(s), iqr, s);
      if (d.isPresent()) {
        return d.get();
      }
      String basis = "quartiles " + Numbers.human(q1) + " and " + Numbers.human(q3) + " of " + newest(n)
          + "; fences Q1 − " + Numbers.human(k) + "·IQR and Q3 + " + Numbers.human(k) + "·IQR";
      return Evidence.banded(name(), basis, n, minHistory, value, Stats.median(s), OptionalDouble.of(iqr),
          q1 - k * iqr, q3 + k * iqr);
    }
  }

  /**
   * Noise from adjacent deltas: sigma {@code = median|x_i − x_{i−1}| / (0.6745·√2)} over the trusted values
   * in time order, the level is the mean of the newest {@code level} values, and the limits are
   * {@code level ± z·sigma·√(1 + 1/level)}.
   *
   * @param window how many of the newest trusted values to use
   * @param minHistory the least number of trusted values to judge with, at least 3
   * @param level how many of the newest values make the local level
   * @param z the half-width of the band in noise standard deviations
   */
  record AdjacentDelta(int window, int minHistory, int level, double z) implements GateModel {
    /** Validates the parameters. */
    public AdjacentDelta {
      checkWindow(window, minHistory, 3);
      checkPositive("z", z);
      if (level < 1 || level > minHistory) {
        throw new IllegalArgumentException("the level needs 1 <= level <= min history, got " + level);
      }
    }

    @Override
    public String name() {
      return "adjacent-delta";
    }

    @Override
    public Evidence judge(GateConstraint constraint, double value, double[] newestFirst, int n) {
      if (n == 0) {
        return inactive(name(), minHistory, value);
      }
      double[] s = Stats.sorted(newestFirst, n);
      double centre = Stats.mean(newestFirst, Math.min(level, n));
      double sigma = 0;
      if (n >= 2) {
        double[] deltas = new double[n - 1];
        for (int i = 1; i < n; i++) {
          deltas[i - 1] = Math.abs(newestFirst[i - 1] - newestFirst[i]);
        }
        sigma = Stats.median(Stats.sorted(deltas, n - 1)) / (0.6745 * Math.sqrt(2));
      }
      Optional<Evidence> d = declined(name(), minHistory, value, n, centre, sigma, s);
      if (d.isPresent()) {
        return d.get();
      }
      double half = z * sigma * Math.sqrt(1 + 1.0 / level);
      String basis = "noise sigma " + Numbers.human(sigma) + " from " + (n - 1) + " adjacent deltas of "
          + newest(n) + ", level " + Numbers.human(centre) + " = mean of the newest " + level
          + "; limits level ± " + Numbers.human(z) + "·sigma·√(1 + 1/" + level + ")";
      return Evidence.banded(name(), basis, n, minHistory, value, centre, OptionalDouble.of(sigma),
          centre - half, centre + half);
    }
  }
}

package dev.cipolicy.gate;

import java.util.Arrays;

/** Order statistics and moments over the first {@code n} values of an array; inputs are never modified. */
final class Stats {
  private Stats() {}

  /**
   * The arithmetic mean, summed in array order.
   *
   * @param values the values
   * @param n how many leading values to use, at least 1
   * @return the mean
   */
  static double mean(double[] values, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += values[i];
    }
    return sum / n;
  }

  /**
   * A sorted copy of the leading values.
   *
   * @param values the values
   * @param n how many leading values to copy
   * @return a new sorted array of length {@code n}
   */
  static double[] sorted(double[] values, int n) {
    double[] s = Arrays.copyOf(values, n);
    Arrays.sort(s);
    return s;
  }

  /**
   * The median of sorted values.
   *
   * @param sorted values in ascending order, at least one
   * @return the middle value, or the mean of the two middle values
   */
  static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /**
   * A quantile of sorted values by linear interpolation between order statistics (Hyndman and Fan
   * type 7, the default of R and NumPy).
   *
   * @param sorted values in ascending order, at least one
   * @param p the probability, in {@code [0, 1]}
   * @return the quantile
   */
  static double quantile(double[] sorted, double p) {
    double h = (sorted.length - 1) * p;
    int lo = (int) Math.floor(h);
    int hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
  }

  /**
   * The median absolute deviation from a centre.
   *
   * @param values the values
   * @param n how many leading values to use, at least 1
   * @param centre the centre
   * @return {@code median(|x − centre|)}
   */
  static double mad(double[] values, int n, double centre) {
    double[] d = new double[n];
    for (int i = 0; i < n; i++) {
      d[i] = Math.abs(values[i] - centre);
    }
    Arrays.sort(d);
    return median(d);
  }

  /**
   * Whether sorted values form two separated clusters: split at the widest gap, both sides hold at least
   * {@code max(3, ⌈n/4⌉)} values, and the gap is at least twice the range of either side.
   *
   * @param sorted values in ascending order
   * @return the size of the lower cluster when bimodal, else 0
   */
  static int bimodalSplit(double[] sorted) {
    int n = sorted.length;
    int min = Math.max(3, (n + 3) / 4);
    if (n < 2 * min) {
      return 0;
    }
    int split = 0;
    double gap = 0;
    for (int i = 1; i < n; i++) {
      double g = sorted[i] - sorted[i - 1];
      if (g > gap) {
        gap = g;
        split = i;
      }
    }
    if (split < min || n - split < min) {
      return 0;
    }
    double lowerRange = sorted[split - 1] - sorted[0];
    double upperRange = sorted[n - 1] - sorted[split];
    return gap >= 2 * Math.max(lowerRange, upperRange) ? split : 0;
  }
}

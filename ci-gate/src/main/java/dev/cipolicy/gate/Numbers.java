package dev.cipolicy.gate;

import dev.cipolicy.api.CanonicalJson;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** Deterministic number text for messages: six significant digits, canonical form, non-finite by name. */
final class Numbers {
  private static final MathContext SIX = new MathContext(6, RoundingMode.HALF_EVEN);
  private static final double[] POWERS = new double[23];

  static {
    POWERS[0] = 1;
    for (int i = 1; i < POWERS.length; i++) {
      POWERS[i] = POWERS[i - 1] * 10; // exact up to 1e22
    }
  }

  private Numbers() {}

  /**
   * A number for a human: rounded to six significant digits, without trailing zeros.
   *
   * @param d any double
   * @return e.g. {@code 0.123457}, {@code 1}, {@code NaN}
   */
  static String human(double d) {
    if (!Double.isFinite(d)) {
      return Double.toString(d);
    }
    if (d == 0) {
      return "0";
    }
    double magnitude = Math.abs(d);
    if (magnitude >= 1e-6 && magnitude < 1e15) {
      // fast path: scale to six integer digits, round, scale back; a power of ten below 1e23 is exact
      int exponent = (int) Math.floor(Math.log10(magnitude));
      int shift = 5 - exponent;
      double rounded = shift >= 0
          ? Math.rint(d * POWERS[shift]) / POWERS[shift]
          : Math.rint(d / POWERS[-shift]) * POWERS[-shift];
      return plain(Double.toString(rounded), rounded);
    }
    return CanonicalJson.number(new BigDecimal(d).round(SIX).doubleValue());
  }

  private static String plain(String text, double value) {
    if (text.indexOf('E') >= 0) {
      return CanonicalJson.number(value);
    }
    int end = text.length();
    while (text.charAt(end - 1) == '0') {
      end--;
    }
    if (text.charAt(end - 1) == '.') {
      end--;
    }
    return text.substring(0, end);
  }
}

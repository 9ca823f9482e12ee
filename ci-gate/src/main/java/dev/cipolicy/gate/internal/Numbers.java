package dev.cipolicy.gate.internal;

import dev.cipolicy.api.internal.Json;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** Deterministic number text for messages: six significant digits, canonical form, non-finite by name. */
public final class Numbers {
  private static final MathContext SIX = new MathContext(6, RoundingMode.HALF_EVEN);

  private Numbers() {}

  /**
   * A number for a human: rounded to six significant digits.
   *
   * @param d any double
   * @return e.g. {@code 0.123457}, {@code 1}, {@code NaN}
   */
  public static String human(double d) {
    if (!Double.isFinite(d)) {
      return Double.toString(d);
    }
    if (d == 0) {
      return "0";
    }
    return Json.number(new BigDecimal(d).round(SIX).doubleValue());
  }
}

package dev.cipolicy.api;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The deterministic JSON text of the library's {@code toJson()} methods: compact, map keys in insertion order,
 * numbers in one canonical decimal form. A host renders the trees of the {@code toMap()} methods with it to get
 * the same text, byte for byte.
 */
public final class CanonicalJson {
  private CanonicalJson() {}

  /**
   * Renders a value tree of {@link Map} (with {@link String} keys), {@link List}, {@link String},
   * {@link Integer}, {@link Long}, {@link Double} and {@link Boolean} as compact JSON. A finite double is
   * written in its {@linkplain #number(double) canonical form}; a non-finite one as the string
   * {@code "NaN"}, {@code "Infinity"} or {@code "-Infinity"}.
   *
   * @param value the tree to render
   * @return compact JSON text
   * @throws InvalidInputException when the tree holds a value of another type
   */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out);
    return out.toString();
  }

  private static void write(Object value, StringBuilder out) {
    if (value instanceof String s) {
      quote(s, out);
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else if (value instanceof Double d) {
      if (Double.isFinite(d)) {
        out.append(number(d));
      } else {
        quote(d.toString(), out);
      }
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        quote(String.valueOf(e.getKey()), out);
        out.append(':');
        write(e.getValue(), out);
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(list.get(i), out);
      }
      out.append(']');
    } else {
      throw new InvalidInputException("cannot render a " + value.getClass().getName() + " as JSON; expected a Map,"
          + " List, String, Integer, Long, Double or Boolean");
    }
  }

  /**
   * The canonical decimal text of a finite double: the digits of {@link Double#toString(double)} (which
   * read back as the same double), without trailing zeros or a trailing point, in plain notation for magnitudes from
   * {@code 1e-7} to below {@code 1e21} and in scientific notation ({@code 1E+21}) outside.
   *
   * @param d a finite number
   * @return e.g. {@code 0.5} for {@code .5} and {@code 0.50}, {@code 1} for {@code 1.0}, {@code 0} for
   *     {@code -0.0}
   * @throws InvalidInputException when {@code d} is NaN or infinite
   */
  public static String number(double d) {
    if (!Double.isFinite(d)) {
      throw new InvalidInputException("cannot write " + d + " as a JSON number; expected a finite number");
    }
    if (d == 0) {
      return "0";
    }
    BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    double magnitude = Math.abs(d);
    return magnitude >= 1e-7 && magnitude < 1e21 ? b.toPlainString() : b.toString();
  }

  /** Appends {@code s} as a JSON string literal. */
  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}

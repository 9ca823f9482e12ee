package dev.cipolicy.workflow;

import dev.cipolicy.workflow.ExprValue.Arr;
import dev.cipolicy.workflow.ExprValue.Bool;
import dev.cipolicy.workflow.ExprValue.Null;
import dev.cipolicy.workflow.ExprValue.Num;
import dev.cipolicy.workflow.ExprValue.Obj;
import dev.cipolicy.workflow.ExprValue.Str;
import dev.cipolicy.workflow.ExprValue.Unknown;
import java.math.BigDecimal;
import java.util.Locale;

/** GitHub's coercions between the expression language's types. */
final class Coercion {
  private Coercion() {}

  /**
   * GitHub's number coercion: null 0, true 1, false 0, a string parsed as a number (trimmed; empty is 0;
   * decimal with exponent, {@code 0x} hex, {@code 0o} octal, {@code 0b} binary, {@code Infinity}; otherwise
   * NaN), arrays and objects NaN.
   *
   * @param v a known value
   * @return the number
   */
  static double toNumber(ExprValue v) {
    if (v instanceof Null) {
      return 0;
    } else if (v instanceof Bool b) {
      return b.value() ? 1 : 0;
    } else if (v instanceof Num n) {
      return n.value();
    } else if (v instanceof Str s) {
      return parseNumber(s.value().strip(), true);
    }
    return Double.NaN;
  }

  /**
   * Parses number text as GitHub does; NaN when it is not a number.
   *
   * @param t the text, already trimmed
   * @param emptyIsZero whether the empty text is 0 (strings) or not a number (literals)
   */
  static double parseNumber(String t, boolean emptyIsZero) {
    if (t.isEmpty()) {
      return emptyIsZero ? 0 : Double.NaN;
    }
    if (t.length() > 2 && t.charAt(0) == '0') {
      char k = Character.toLowerCase(t.charAt(1));
      int radix = k == 'x' ? 16 : k == 'o' ? 8 : k == 'b' ? 2 : 0;
      if (radix != 0) {
        String digits = t.substring(2);
        for (int i = 0; i < digits.length(); i++) {
          if (Character.digit(digits.charAt(i), radix) < 0) {
            return Double.NaN;
          }
        }
        return new java.math.BigInteger(digits, radix).doubleValue();
      }
    }
    String body = t.charAt(0) == '+' || t.charAt(0) == '-' ? t.substring(1) : t;
    double sign = t.charAt(0) == '-' ? -1 : 1;
    if (body.equals("Infinity")) {
      return sign * Double.POSITIVE_INFINITY;
    }
    if (!body.matches("(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?")) {
      return Double.NaN;
    }
    return sign * Double.parseDouble(body);
  }

  /**
   * GitHub's string coercion: null {@code ''}, booleans {@code true}/{@code false}, numbers in their
   * shortest decimal form, arrays {@code Array}, objects {@code Object}.
   *
   * @param v a known value
   * @return the text
   */
  static String toStr(ExprValue v) {
    if (v instanceof Null) {
      return "";
    } else if (v instanceof Bool b) {
      return Boolean.toString(b.value());
    } else if (v instanceof Num n) {
      return numberText(n.value());
    } else if (v instanceof Str s) {
      return s.value();
    } else if (v instanceof Arr) {
      return "Array";
    } else if (v instanceof Obj) {
      return "Object";
    }
    return ((Unknown) v).term();
  }

  /**
   * A number as text: integers without a fraction, {@code NaN}, {@code Infinity}, exponent form outside
   * 1e-7 to 1e21.
   *
   * @param d the number
   * @return the text
   */
  static String numberText(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    } else if (Double.isInfinite(d)) {
      return d > 0 ? "Infinity" : "-Infinity";
    } else if (d == 0) {
      return "0";
    }
    BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    double m = Math.abs(d);
    return m >= 1e-7 && m < 1e21 ? b.toPlainString() : b.toString().replace("E", "e");
  }

  /**
   * The name of the value's type in messages.
   *
   * @param v the value
   * @return e.g. {@code string}
   */
  static String kind(ExprValue v) {
    return v.getClass().getSimpleName().toLowerCase(Locale.ROOT);
  }
}

package dev.cipolicy.workflow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A value of the expression language: null, boolean, number, string, array, object, or {@link Unknown} — a
 * value the simulation does not know (a secret, a variable, a part of the event it was not given).
 * Conversions follow GitHub's documented coercions; arrays and objects compare equal only to themselves.
 */
public sealed interface ExprValue {
  /** The one null value. */
  Null NULL = new Null();

  /**
   * The truthiness in a condition: {@code false}, {@code 0}, {@code -0}, {@code NaN}, {@code ''} and
   * {@code null} are falsy, everything else truthy; an unknown value may still have a known truth.
   *
   * @return the truth
   */
  Tri truth();

  /**
   * GitHub's number coercion of a value: null 0, true 1, false 0, a string parsed as a number (trimmed; empty
   * is 0; decimal with exponent, {@code 0x} hex, {@code 0o} octal, {@code 0b} binary, {@code Infinity};
   * otherwise NaN), arrays, objects and unknown values NaN.
   *
   * @param v the value
   * @return the number
   */
  static double toNumber(ExprValue v) {
    return Coercion.toNumber(v);
  }

  /** JSON null. */
  record Null() implements ExprValue {
    @Override
    public Tri truth() {
      return Tri.FALSE;
    }
  }

  /**
   * A boolean.
   *
   * @param value the boolean
   */
  record Bool(boolean value) implements ExprValue {
    @Override
    public Tri truth() {
      return Tri.of(value);
    }
  }

  /**
   * A number (a double, as in JSON).
   *
   * @param value the number, possibly NaN or infinite
   */
  record Num(double value) implements ExprValue {
    @Override
    public Tri truth() {
      return Tri.of(value != 0 && !Double.isNaN(value));
    }
  }

  /**
   * A string.
   *
   * @param value the text
   */
  record Str(String value) implements ExprValue {
    @Override
    public Tri truth() {
      return Tri.of(!value.isEmpty());
    }
  }

  /**
   * An array; {@code filtered} when it is the result of an object filter ({@code a.*}), so that a
   * following property access applies to each element.
   *
   * @param items the elements
   * @param filtered whether it came from an object filter
   */
  record Arr(List<ExprValue> items, boolean filtered) implements ExprValue {
    /** Copies the elements. */
    public Arr {
      items = List.copyOf(items);
    }

    @Override
    public Tri truth() {
      return Tri.TRUE;
    }
  }

  /**
   * An object; keys are looked up ignoring case, as GitHub's contexts are. A missing key of a closed object
   * is null; of an open one (a context the simulation knows only in part) it is {@link Unknown}.
   *
   * @param entries the properties in order
   * @param open whether keys not listed are unknown rather than null
   * @param path how the object is named in messages, e.g. {@code github.event}
   */
  record Obj(Map<String, ExprValue> entries, boolean open, String path) implements ExprValue {
    /** Copies the entries. */
    public Obj {
      entries = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }

    /**
     * A closed object.
     *
     * @param entries the properties
     * @return the object
     */
    public static Obj closed(Map<String, ExprValue> entries) {
      return new Obj(entries, false, "");
    }

    /**
     * The value of a key, ignoring case.
     *
     * @param key the property name
     * @return the value; null (the language's) or unknown when missing
     */
    public ExprValue get(String key) {
      ExprValue v = entries.get(key);
      if (v != null) {
        return v;
      }
      for (Map.Entry<String, ExprValue> e : entries.entrySet()) {
        if (e.getKey().equalsIgnoreCase(key)) {
          return e.getValue();
        }
      }
      return open ? new Unknown(path.isEmpty() ? key : path + "." + key, Tri.UNKNOWN) : NULL;
    }

    @Override
    public Tri truth() {
      return Tri.TRUE;
    }
  }

  /**
   * A value the simulation does not know.
   *
   * @param term the expression term it came from, e.g. {@code vars.RUN_GPU}
   * @param truth its truthiness, known in some cases ({@code unknown && false} is falsy whatever it is)
   */
  record Unknown(String term, Tri truth) implements ExprValue {}

  /**
   * A string value.
   *
   * @param s the text
   * @return the value
   */
  static ExprValue of(String s) {
    return new Str(s);
  }

  /**
   * Converts a JSON-like Java tree ({@link Map} with string keys, {@link List}, {@link String},
   * {@link Number}, {@link Boolean}, {@code null}) to a value; maps become closed objects.
   *
   * @param tree the tree
   * @return the value
   * @throws IllegalArgumentException for another type
   */
  static ExprValue fromTree(@Nullable Object tree) {
    if (tree == null) {
      return NULL;
    } else if (tree instanceof ExprValue v) {
      return v;
    } else if (tree instanceof String s) {
      return new Str(s);
    } else if (tree instanceof Boolean b) {
      return new Bool(b);
    } else if (tree instanceof Number n) {
      return new Num(n.doubleValue());
    } else if (tree instanceof List<?> l) {
      List<ExprValue> items = new ArrayList<>();
      for (Object o : l) {
        items.add(fromTree(o));
      }
      return new Arr(items, false);
    } else if (tree instanceof Map<?, ?> m) {
      Map<String, ExprValue> entries = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        entries.put(String.valueOf(e.getKey()), fromTree(e.getValue()));
      }
      return Obj.closed(entries);
    }
    throw new IllegalArgumentException("not a JSON-like value: " + tree.getClass().getName());
  }
}

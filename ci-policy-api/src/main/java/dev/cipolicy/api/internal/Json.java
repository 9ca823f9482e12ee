package dev.cipolicy.api.internal;

import java.util.List;
import java.util.Map;

/** A minimal, deterministic JSON writer for explanations; keys keep insertion order. */
public final class Json {
  private Json() {}

  /**
   * Renders a value tree of {@link Map} (with {@link String} keys), {@link List}, {@link String},
   * {@link Number} and {@link Boolean} as compact JSON.
   *
   * @param value the tree to render
   * @return compact JSON text
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
      throw new IllegalArgumentException("cannot render " + value.getClass().getName() + " as JSON");
    }
  }

  /**
   * Appends {@code s} as a JSON string literal.
   *
   * @param s the text
   * @param out where to append
   */
  public static void quote(String s, StringBuilder out) {
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

  /**
   * Renders a list of strings as a compact JSON array, e.g. {@code ["a","b"]}.
   *
   * @param items the strings
   * @return compact JSON
   */
  public static String stringArray(List<String> items) {
    return write(items);
  }
}

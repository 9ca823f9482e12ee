package dev.cipolicy.workflow;

import dev.cipolicy.workflow.ExprValue.Arr;
import dev.cipolicy.workflow.ExprValue.Bool;
import dev.cipolicy.workflow.ExprValue.Null;
import dev.cipolicy.workflow.ExprValue.Num;
import dev.cipolicy.workflow.ExprValue.Obj;
import dev.cipolicy.workflow.ExprValue.Str;
import dev.cipolicy.workflow.ExprValue.Unknown;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON of {@code fromJSON} and {@code toJSON}: a strict RFC 8259 reader and an indented writer. */
final class Json {
  private static final int MAX_DEPTH = 200;

  /** Thrown by the reader; the caller turns it into a located expression error. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message, null, false, false);
    }
  }

  private final String text;
  private int pos;

  private Json(String text) {
    this.text = text;
  }

  /** Parses JSON text. */
  static ExprValue parse(String text) throws Malformed {
    Json j = new Json(text);
    j.skipSpace();
    ExprValue v = j.value(0);
    j.skipSpace();
    if (j.pos != text.length()) {
      throw j.error("expected the end of the JSON text");
    }
    return v;
  }

  private Malformed error(String what) {
    return new Malformed(what + " at offset " + pos);
  }

  private void skipSpace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private ExprValue value(int depth) throws Malformed {
    if (depth > MAX_DEPTH) {
      throw error("JSON nested deeper than " + MAX_DEPTH);
    }
    if (pos >= text.length()) {
      throw error("expected a JSON value");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{' -> {
        pos++;
        Map<String, ExprValue> m = new LinkedHashMap<>();
        skipSpace();
        if (peek('}')) {
          pos++;
          return Obj.closed(m);
        }
        while (true) {
          skipSpace();
          if (!peek('"')) {
            throw error("expected a string key");
          }
          String k = string();
          skipSpace();
          expect(':');
          skipSpace();
          m.put(k, value(depth + 1));
          skipSpace();
          if (peek(',')) {
            pos++;
          } else {
            expect('}');
            return Obj.closed(m);
          }
        }
      }
      case '[' -> {
        pos++;
        List<ExprValue> l = new ArrayList<>();
        skipSpace();
        if (peek(']')) {
          pos++;
          return new Arr(l, false);
        }
        while (true) {
          skipSpace();
          l.add(value(depth + 1));
          skipSpace();
          if (peek(',')) {
            pos++;
          } else {
            expect(']');
            return new Arr(l, false);
          }
        }
      }
      case '"' -> {
        return new Str(string());
      }
      default -> {
        if (text.startsWith("true", pos)) {
          pos += 4;
          return new Bool(true);
        } else if (text.startsWith("false", pos)) {
          pos += 5;
          return new Bool(false);
        } else if (text.startsWith("null", pos)) {
          pos += 4;
          return ExprValue.NULL;
        }
        int start = pos;
        while (pos < text.length() && "+-.0123456789eE".indexOf(text.charAt(pos)) >= 0) {
          pos++;
        }
        String n = text.substring(start, pos);
        if (!n.matches("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?")) {
          pos = start;
          throw error("expected a JSON value");
        }
        return new Num(Double.parseDouble(n));
      }
    }
  }

  private boolean peek(char c) {
    return pos < text.length() && text.charAt(pos) == c;
  }

  private void expect(char c) throws Malformed {
    if (!peek(c)) {
      throw error("expected '" + c + "'");
    }
    pos++;
  }

  private String string() throws Malformed {
    pos++;
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return sb.toString();
      } else if (c < 0x20) {
        throw error("control character in string");
      } else if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (pos >= text.length()) {
        throw error("unterminated escape");
      }
      char e = text.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          if (pos + 4 > text.length()) {
            throw error("short \\u escape");
          }
          int cp = 0;
          for (int i = 0; i < 4; i++) {
            int d = Character.digit(text.charAt(pos++), 16);
            if (d < 0) {
              throw error("bad \\u escape");
            }
            cp = cp * 16 + d;
          }
          sb.append((char) cp);
        }
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  /** Writes a value as GitHub's {@code toJSON} does: two-space indentation. */
  static String write(ExprValue v) {
    return write(v, Integer.MAX_VALUE);
  }

  /** A {@link #write} that would be longer than its limit. */
  static final class TooLong extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLong() {
      super("too long", null, false, false);
    }
  }

  /**
   * Writes a value as GitHub's {@code toJSON} does, failing as soon as the text grows past {@code max}
   * characters.
   *
   * @throws TooLong past the limit
   */
  static String write(ExprValue v, int max) {
    StringBuilder sb = new StringBuilder();
    write(v, sb, "", max);
    return sb.toString();
  }

  private static void write(ExprValue v, StringBuilder sb, String indent, int max) {
    if (sb.length() > max) {
      throw new TooLong();
    }
    if (v instanceof Null) {
      sb.append("null");
    } else if (v instanceof Bool b) {
      sb.append(b.value());
    } else if (v instanceof Num n) {
      sb.append(Coercion.numberText(n.value()));
    } else if (v instanceof Str s) {
      quote(s.value(), sb);
      if (sb.length() > max) {
        throw new TooLong();
      }
    } else if (v instanceof Arr a) {
      if (a.items().isEmpty()) {
        sb.append("[]");
        return;
      }
      sb.append("[\n");
      String inner = indent + "  ";
      for (int i = 0; i < a.items().size(); i++) {
        sb.append(inner);
        write(a.items().get(i), sb, inner, max);
        sb.append(i + 1 < a.items().size() ? ",\n" : "\n");
      }
      sb.append(indent).append(']');
      if (sb.length() > max) {
        throw new TooLong();
      }
    } else if (v instanceof Obj o) {
      if (o.entries().isEmpty()) {
        sb.append("{}");
        return;
      }
      sb.append("{\n");
      String inner = indent + "  ";
      int i = 0;
      for (Map.Entry<String, ExprValue> e : o.entries().entrySet()) {
        sb.append(inner);
        quote(e.getKey(), sb);
        sb.append(": ");
        write(e.getValue(), sb, inner, max);
        sb.append(++i < o.entries().size() ? ",\n" : "\n");
      }
      sb.append(indent).append('}');
      if (sb.length() > max) {
        throw new TooLong();
      }
    } else {
      sb.append(((Unknown) v).term());
    }
  }

  private static void quote(String s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}

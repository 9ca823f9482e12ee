package dev.cipolicy.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A strict RFC 8259 parser for exactly one JSON array of strings, e.g. the PR labels GitHub passes as
 * {@code toJSON(github.event.pull_request.labels.*.name)}. Kept in the core so that the engine needs no
 * JSON library.
 */
public final class JsonStringArray {
  private final String text;
  private int pos;

  private JsonStringArray(String text) {
    this.text = text;
  }

  /**
   * Parses {@code text} as a JSON array whose elements are all strings.
   *
   * @param text the JSON text
   * @return the strings in order, or empty when the text is anything else
   */
  public static Optional<List<String>> parse(String text) {
    try {
      return Optional.of(new JsonStringArray(text).array());
    } catch (Malformed e) {
      return Optional.empty();
    }
  }

  private List<String> array() throws Malformed {
    skipWhitespace();
    expect('[');
    List<String> out = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      pos++;
    } else {
      while (true) {
        skipWhitespace();
        out.add(string());
        skipWhitespace();
        char c = next();
        if (c == ']') {
          break;
        }
        if (c != ',') {
          throw new Malformed();
        }
      }
    }
    skipWhitespace();
    if (pos != text.length()) {
      throw new Malformed();
    }
    return out;
  }

  private String string() throws Malformed {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return sb.toString();
      }
      if (c < 0x20) {
        throw new Malformed();
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          int v = 0;
          for (int i = 0; i < 4; i++) {
            int d = Character.digit(next(), 16);
            if (d < 0) {
              throw new Malformed();
            }
            v = v * 16 + d;
          }
          sb.append((char) v);
        }
        default -> throw new Malformed();
      }
    }
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private char peek() throws Malformed {
    if (pos >= text.length()) {
      throw new Malformed();
    }
    return text.charAt(pos);
  }

  private char next() throws Malformed {
    char c = peek();
    pos++;
    return c;
  }

  private void expect(char c) throws Malformed {
    if (next() != c) {
      throw new Malformed();
    }
  }

  /** Thrown internally at the first character that breaks the grammar. */
  private static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed() {
      super(null, null, false, false);
    }
  }
}

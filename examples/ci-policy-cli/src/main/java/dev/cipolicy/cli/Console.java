package dev.cipolicy.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.Locale;
import java.util.Map;

/**
 * The one printer of the CLI: every line it writes to standard output or standard error goes through here,
 * so that no text taken from an input can start a line of its own or forge a GitHub Actions workflow command.
 *
 * <ul>
 *   <li>Workflow commands ({@link #error}, {@link #warning}, {@link #command}) are one line: the data is escaped
 *       as GitHub's runner expects ({@code %} is {@code %25}, CR {@code %0D}, LF {@code %0A}), a property value
 *       also {@code :} as {@code %3A} and {@code ,} as {@code %2C}; the runner turns them back into the text.</li>
 *   <li>Plain log lines ({@link #line}, {@link #lines}, the help) are made single-line and inert: CR and LF become
 *       the two characters {@code \r} and {@code \n}, every other control character and the Unicode line
 *       separators become {@code \}{@code uXXXX}, and the command markers {@code ::} and {@code ##[} get a zero-width
 *       space (U+200B) after their first character, so the runner never reads the line as a command.</li>
 *   <li>JSON ({@link #json}) is printed as it is, except that {@code ##[} is written {@code #\}{@code u0023[} (the same
 *       JSON value): a JSON line never starts with {@code ::} and holds no raw control character.</li>
 * </ul>
 */
final class Console {
  private static final String ZWSP = "\u200B";

  private final PrintStream out;
  private final PrintStream err;

  Console(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Prints {@code ::error::<message>} on standard error. */
  void error(String message) {
    command("error", Map.of(), message);
  }

  /** Prints {@code ::warning::<message>} on standard error. */
  void warning(String message) {
    command("warning", Map.of(), message);
  }

  /**
   * Prints one workflow command on standard error: {@code ::name key=value,...::data}, the properties in the
   * map's iteration order.
   */
  void command(String name, Map<String, String> properties, String data) {
    err.println(commandLine(name, properties, data));
  }

  /**
   * Prints one workflow command without properties on standard output, where it acts on the lines around it
   * (such as {@code ::group::title} and {@code ::endgroup::}); the data is escaped as {@link #commandLine} does.
   */
  void outCommand(String name, String data) {
    out.println(commandLine(name, Map.of(), data));
  }

  /** Prints one plain line on standard output, made safe by {@link #plain}. */
  void line(String text) {
    out.println(plain(text));
  }

  /** Prints one plain line on standard error, made safe by {@link #plain}. */
  void errLine(String text) {
    err.println(plain(text));
  }

  /** Prints a text of several lines on standard output, each made safe by {@link #plain}. */
  void lines(String text) {
    String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    for (String l : body.split("\n", -1)) {
      line(l);
    }
  }

  /** Prints a JSON text (possibly pretty, several lines) on standard output. */
  void json(String text) {
    out.println(jsonSafe(text));
  }

  /** A writer for picocli's own output (help, version): each line it is given is printed by {@link #plain}. */
  PrintWriter plainWriter(boolean toErr) {
    PrintStream target = toErr ? err : out;
    return new PrintWriter(new LineWriter(target), true);
  }

  /** The text of one workflow command line (without the line break). */
  static String commandLine(String name, Map<String, String> properties, String data) {
    StringBuilder sb = new StringBuilder("::").append(name);
    String sep = " ";
    for (Map.Entry<String, String> p : properties.entrySet()) {
      sb.append(sep).append(p.getKey()).append('=').append(escapeProperty(p.getValue()));
      sep = ",";
    }
    return sb.append("::").append(escapeData(data)).toString();
  }

  /** GitHub's escaping of a workflow command's data: {@code %}, CR and LF as {@code %25}, {@code %0D}, {@code %0A}. */
  static String escapeData(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '%' -> sb.append("%25");
        case '\r' -> sb.append("%0D");
        case '\n' -> sb.append("%0A");
        default -> appendVisible(sb, c);
      }
    }
    return sb.toString();
  }

  /** GitHub's escaping of a workflow command's property value: that of the data, and {@code :} and {@code ,}. */
  static String escapeProperty(String s) {
    // The data escaping adds neither ':' nor ',', so every one left came from the input.
    return escapeData(s).replace(":", "%3A").replace(",", "%2C");
  }

  /**
   * A plain log line: single-line (CR, LF as {@code \r}, {@code \n}; other control characters and U+0085, U+2028,
   * U+2029 as {@code \}{@code uXXXX}) and with every {@code ::} and {@code ##[} broken by a zero-width space.
   */
  static String plain(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case ':' -> {
          sb.append(c);
          if (i + 1 < s.length() && s.charAt(i + 1) == ':') {
            sb.append(ZWSP);
          }
        }
        case '#' -> {
          sb.append(c);
          if (s.startsWith("#[", i + 1)) {
            sb.append(ZWSP);
          }
        }
        default -> appendVisible(sb, c);
      }
    }
    return sb.toString();
  }

  /** A JSON text with {@code ##[} written {@code #\}{@code u0023[}; {@code #} occurs only inside JSON strings. */
  static String jsonSafe(String json) {
    return json.replace("##[", "#\\u0023[");
  }

  private static void appendVisible(StringBuilder sb, char c) {
    boolean control = (c < 0x20 && c != '\t') || (c >= 0x7F && c <= 0x9F) || c == '\u2028' || c == '\u2029';
    if (control) {
      sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
    } else {
      sb.append(c);
    }
  }

  /** Collects characters into lines and prints each with {@link #plain}. */
  private static final class LineWriter extends Writer {
    private final PrintStream target;
    private final StringBuilder pending = new StringBuilder();

    LineWriter(PrintStream target) {
      this.target = target;
    }

    @Override
    public synchronized void write(char[] cbuf, int off, int len) {
      for (int i = off; i < off + len; i++) {
        char c = cbuf[i];
        if (c == '\n') {
          int end = pending.length();
          if (end > 0 && pending.charAt(end - 1) == '\r') {
            pending.setLength(end - 1);
          }
          target.println(plain(pending.toString()));
          pending.setLength(0);
        } else {
          pending.append(c);
        }
      }
    }

    @Override
    public synchronized void flush() {
      if (pending.length() > 0) {
        target.print(plain(pending.toString()));
        pending.setLength(0);
      }
      target.flush();
    }

    @Override
    public void close() {
      flush();
    }
  }
}

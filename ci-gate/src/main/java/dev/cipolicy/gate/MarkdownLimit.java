package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A size limit of a place Markdown is shown in, and the truncation that keeps a report within it. GitHub
 * shows at most 1 MiB of a step's summary ({@link #STEP_SUMMARY}, counted in UTF-8 bytes) and at most 65,536
 * characters of a pull-request comment or a check run's summary ({@link #COMMENT}, counted in UTF-16 code
 * units, which is never fewer than the characters GitHub counts).
 *
 * <p>{@link #truncate} keeps whole lines only — so it never cuts a multi-byte character or a table row —
 * closes any {@code <details>} block it cut into, and ends with a visible note: {@code … truncated: N rows
 * omitted, see the JSON artifact}.
 *
 * @param max the largest size, at least {@link #MIN}
 * @param unit what the size counts
 */
public record MarkdownLimit(int max, Unit unit) {
  /** The smallest limit: room for the note and the closing tags. */
  public static final int MIN = 256;
  /** A GitHub Actions step summary: 1 MiB of UTF-8. */
  public static final MarkdownLimit STEP_SUMMARY = new MarkdownLimit(1024 * 1024, Unit.UTF8_BYTES);
  /** A GitHub pull-request comment or check-run summary: 65,536 characters. */
  public static final MarkdownLimit COMMENT = new MarkdownLimit(65_536, Unit.CHARS);

  private static final String CLOSE_DETAILS = "\n</details>\n\n";

  /** What a size counts. */
  public enum Unit {
    /** Bytes of the UTF-8 encoding. */
    UTF8_BYTES,
    /** UTF-16 code units ({@link String#length()}). */
    CHARS
  }

  /** Checks the limit. */
  public MarkdownLimit {
    if (unit == null) {
      throw new InvalidInputException("a Markdown limit needs a unit");
    }
    if (max < MIN) {
      throw new InvalidInputException("a Markdown limit is at least " + MIN + ", got " + max);
    }
  }

  /**
   * The same unit with another maximum, e.g. what is left of a step summary that already holds text.
   *
   * @param newMax the maximum
   * @return the limit
   */
  public MarkdownLimit withMax(int newMax) {
    return new MarkdownLimit(newMax, unit);
  }

  /**
   * The size of a text in this limit's unit.
   *
   * @param text the text
   * @return its size
   */
  public long size(String text) {
    return unit == Unit.CHARS ? text.length() : text.getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * The note that ends a truncated text.
   *
   * @param rows the table rows left out
   * @param lines the lines left out
   * @return e.g. {@code \n_… truncated: 12 rows omitted, see the JSON artifact._\n}
   */
  static String note(long rows, long lines) {
    String what = rows > 0 ? rows + (rows == 1 ? " row" : " rows") : lines + (lines == 1 ? " line" : " lines");
    return "\n_… truncated: " + what + " omitted, see the JSON artifact._\n";
  }

  /**
   * The text itself when it fits, else its longest prefix of whole lines that fits together with the closing
   * tags of the {@code <details>} blocks it leaves open and the truncation note.
   *
   * @param markdown the text
   * @return a text of at most {@link #max()} in this limit's unit
   */
  public String truncate(String markdown) {
    if (size(markdown) <= max) {
      return markdown;
    }
    List<String> lines = lines(markdown);
    boolean[] row = rows(lines);
    long totalRows = 0;
    for (boolean r : row) {
      totalRows += r ? 1 : 0;
    }
    // room for the longest note this text can need: no more rows and lines than it has
    long reserve = Math.max(size(note(totalRows, lines.size())), size(note(0, lines.size())));
    long closeSize = size(CLOSE_DETAILS);
    StringBuilder kept = new StringBuilder();
    long used = 0;
    int open = 0;
    int i = 0;
    for (; i < lines.size(); i++) {
      String line = lines.get(i);
      int openAfter = Math.max(0, open + details(line));
      if (used + size(line) + openAfter * closeSize + reserve > max) {
        break;
      }
      kept.append(line);
      used += size(line);
      open = openAfter;
    }
    long rowsLeft = 0;
    for (int j = i; j < lines.size(); j++) {
      rowsLeft += row[j] ? 1 : 0;
    }
    if (kept.length() > 0 && kept.charAt(kept.length() - 1) != '\n') {
      kept.append('\n'); // cannot happen for a cut text (only the last line lacks a newline), kept for safety
    }
    kept.append(CLOSE_DETAILS.repeat(open));
    return kept.append(note(rowsLeft, lines.size() - i)).toString();
  }

  private static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    while (start < text.length()) {
      int nl = text.indexOf('\n', start);
      int end = nl < 0 ? text.length() : nl + 1;
      out.add(text.substring(start, end));
      start = end;
    }
    return out;
  }

  /** Which lines are table rows: lines starting with a pipe, except header and delimiter rows. */
  private static boolean[] rows(List<String> lines) {
    boolean[] row = new boolean[lines.size()];
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      boolean delimiter = delimiterRow(line);
      boolean header = i + 1 < lines.size() && delimiterRow(lines.get(i + 1).strip());
      row[i] = line.startsWith("|") && !delimiter && !header;
    }
    return row;
  }

  /** A table's delimiter row, such as {@code |---|---:|}: pipes, dashes, colons and spaces, one dash at least. */
  private static boolean delimiterRow(String line) {
    if (!line.startsWith("|")) {
      return false;
    }
    boolean dash = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '-') {
        dash = true;
      } else if (c != '|' && c != ':' && c != ' ' && c != '\t') {
        return false;
      }
    }
    return dash;
  }

  private static int details(String line) {
    String l = line.strip();
    int delta = 0;
    if (l.startsWith("<details>") || l.startsWith("<details ")) {
      delta++;
    }
    if (l.contains("</details>")) {
      delta--;
    }
    return delta;
  }
}

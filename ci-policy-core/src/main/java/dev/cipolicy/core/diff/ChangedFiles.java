package dev.cipolicy.core.diff;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The parser of {@code git diff --name-status -z -M} output: a sequence of entries
 * {@code STATUS NUL PATH NUL}, or {@code R### NUL OLD NUL NEW NUL} for renames and copies. Paths may
 * hold any character but NUL, newlines included.
 *
 * <p>The diff is {@link DiffParse.Unusable} when it is empty, not NUL-terminated, not valid UTF-8, has
 * a status other than {@code [ADMTUXB]} or {@code [RC][0-9]{1,3}}, or an entry with a missing or empty
 * path. Parsing never throws.
 */
public final class ChangedFiles {
  private static final int MAX_SHOWN_STATUS = 40;

  private ChangedFiles() {}

  /**
   * Parses the bytes of {@code git diff --name-status -z -M}.
   *
   * @param bytes the command's standard output
   * @return the entries, or the reason the diff cannot be used
   */
  public static DiffParse parse(byte[] bytes) {
    if (bytes.length == 0) {
      return new DiffParse.Unusable("the diff is empty");
    }
    if (bytes[bytes.length - 1] != 0) {
      return new DiffParse.Unusable("the diff is not NUL-terminated");
    }
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      return new DiffParse.Unusable("the diff is not valid UTF-8 (byte offset " + in.position() + ")");
    }
    out.flip();
    return entries(out.toString());
  }

  private static DiffParse entries(String text) {
    List<String> fields = new ArrayList<>();
    int from = 0;
    for (int nul = text.indexOf('\0'); nul >= 0; nul = text.indexOf('\0', from)) {
      fields.add(text.substring(from, nul));
      from = nul + 1;
    }
    List<ChangeEntry> entries = new ArrayList<>();
    int i = 0;
    while (i < fields.size()) {
      int number = entries.size() + 1;
      String status = fields.get(i++);
      if (status.isEmpty()) {
        return new DiffParse.Unusable("entry " + number + " has an empty status");
      }
      if (!ChangeEntry.isStatus(status)) {
        return new DiffParse.Unusable("entry " + number + " has an unknown status '" + shown(status) + "'");
      }
      boolean two = ChangeEntry.hasTwoPaths(status);
      List<String> names = two ? List.of("old path", "new path") : List.of("path");
      for (String name : names) {
        if (i >= fields.size()) {
          return new DiffParse.Unusable("entry " + number + " (" + status + ") is missing its " + name);
        }
        if (fields.get(i++).isEmpty()) {
          return new DiffParse.Unusable("entry " + number + " (" + status + ") has an empty " + name);
        }
      }
      entries.add(new ChangeEntry(status, fields.subList(i - names.size(), i)));
    }
    return new DiffParse.Usable(entries);
  }

  /** A status for a message: control characters escaped, cut after 40 characters. */
  private static String shown(String status) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < status.length() && i < MAX_SHOWN_STATUS; i++) {
      char c = status.charAt(i);
      switch (c) {
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\'' -> sb.append("\\'");
        case '\\' -> sb.append("\\\\");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    if (status.length() > MAX_SHOWN_STATUS) {
      sb.append("...");
    }
    return sb.toString();
  }
}

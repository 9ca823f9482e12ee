package dev.cipolicy.api;

import java.util.Optional;

/**
 * One reason a policy document was rejected: where (when known), which field, and what was expected.
 *
 * @param location the position in the source document, if the policy came from one
 * @param path the field path in the document, e.g. {@code schedules[1].cron}; empty for the root
 * @param message what is wrong and what was expected
 */
public record PolicyProblem(Optional<SourceLocation> location, String path, String message) {
  /** Validates the components. */
  public PolicyProblem {
    if (location == null || path == null || message == null) {
      throw new IllegalArgumentException("a policy problem needs a location, a path and a message");
    }
  }

  /**
   * A problem without a source location, for policies built in code.
   *
   * @param path the field path
   * @param message what is wrong and what was expected
   * @return the problem
   */
  public static PolicyProblem at(String path, String message) {
    return new PolicyProblem(Optional.empty(), path, message);
  }

  /**
   * Renders as {@code source:line:column: path: message}, on one line: a line break or other control
   * character taken from the document (a key, a value) is shown as a backslash-u escape (a line feed
   * as a backslash, {@code u} and {@code 000a}).
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    location.ifPresent(l -> sb.append(l).append(": "));
    if (!path.isEmpty()) {
      sb.append(path).append(": ");
    }
    return oneLine(sb.append(message).toString());
  }

  private static String oneLine(String s) {
    StringBuilder sb = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean control = c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029;
      if (control && sb == null) {
        sb = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      if (sb != null) {
        if (control) {
          sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? s : sb.toString();
  }
}

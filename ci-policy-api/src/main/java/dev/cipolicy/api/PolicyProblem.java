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
    return CiPolicyException.oneLine(sb.append(message).toString());
  }
}

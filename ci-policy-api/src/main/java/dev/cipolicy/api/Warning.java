package dev.cipolicy.api;

import java.util.Optional;

/**
 * A non-fatal finding returned as a value: a policy check that passed with a remark, or an input that
 * was ignored.
 *
 * @param code a stable machine-readable code, e.g. {@code label-without-prefix}
 * @param message the human-readable explanation; for a finding about a policy field it starts with the
 *     field path, e.g. {@code schedules[1].cron: crons ...}
 * @param location where in a source document the finding is, if it is about one
 */
public record Warning(String code, String message, Optional<SourceLocation> location) {
  /** Validates the components. */
  public Warning {
    if (code == null || code.isEmpty() || message == null || location == null) {
      throw new IllegalArgumentException("a warning needs a non-empty code, a message and a location (maybe empty)");
    }
  }

  /**
   * A warning about no place in a document.
   *
   * @param code a stable machine-readable code
   * @param message the human-readable explanation
   */
  public Warning(String code, String message) {
    this(code, message, Optional.empty());
  }

  /** Renders as {@code code: message}, or {@code code: source:line:column: message} when located. */
  @Override
  public String toString() {
    return code + ": " + location.map(l -> l + ": ").orElse("") + message;
  }
}

package dev.cipolicy.api;

/**
 * A non-fatal finding returned as a value: a policy check that passed with a remark, or an input that
 * was ignored.
 *
 * @param code a stable machine-readable code, e.g. {@code label-without-prefix}
 * @param message the human-readable explanation
 */
public record Warning(String code, String message) {
  /** Validates the components. */
  public Warning {
    if (code == null || code.isEmpty() || message == null) {
      throw new IllegalArgumentException("a warning needs a non-empty code and a message");
    }
  }

  @Override
  public String toString() {
    return code + ": " + message;
  }
}

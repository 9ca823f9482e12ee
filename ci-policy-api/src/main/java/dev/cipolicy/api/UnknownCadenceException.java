package dev.cipolicy.api;

import java.util.List;
import java.util.TreeSet;

/** A cadence name that the policy does not declare. */
public final class UnknownCadenceException extends CiPolicyException {
  private static final long serialVersionUID = 1L;

  private final String cadence;

  /**
   * Creates the exception.
   *
   * @param cadence the unknown name, as given
   * @param known the cadences the policy declares
   */
  public UnknownCadenceException(String cadence, List<String> known) {
    super("Unknown CI cadence '" + cadence + "'; expected one of "
        + String.join(", ", new TreeSet<>(known)).transform(s -> "[" + s + "]"));
    this.cadence = cadence;
  }

  /**
   * The cadence that was asked for.
   *
   * @return the name as given
   */
  public String cadence() {
    return cadence;
  }
}

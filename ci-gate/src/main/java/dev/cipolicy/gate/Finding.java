package dev.cipolicy.gate;

import java.util.Locale;

/** What an out-of-band value means, given which direction of the metric is better. */
public enum Finding {
  /** The value is not out of band (any status but FAIL). */
  NONE,
  /** Out of band on the worse side. */
  REGRESSION,
  /** Out of band on the better side: too good to be true, and still not trusted. */
  ANOMALOUS_IMPROVEMENT,
  /** Out of band, and the gate does not declare which direction is better. */
  OUT_OF_BAND;

  /**
   * The finding in words, for messages.
   *
   * @return e.g. {@code anomalous improvement}
   */
  public String words() {
    return name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }
}

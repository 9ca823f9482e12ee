package dev.cipolicy.gate;

import java.util.Locale;

/** Whether a run writes baselines (nightly, weekly) or only reports (every other run). */
public enum GateMode {
  /** Writes one baseline run per evaluated test (nightly and weekly runs). */
  BASELINE,
  /** Reports a verdict line and a step-summary block; never writes. */
  SHADOW;

  /**
   * The tag used in log lines.
   *
   * @return {@code baseline} or {@code shadow}
   */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}

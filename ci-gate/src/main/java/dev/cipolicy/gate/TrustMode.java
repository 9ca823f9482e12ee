package dev.cipolicy.gate;

/** How the samples of a baseline run are flagged trusted. */
public enum TrustMode {
  /**
   * The reference behaviour: every sample carries the run's trust, so one failing
   * coordinate leaves the whole run out of the baseline.
   */
  PER_RUN,
  /**
   * Ours: each sample carries its own coordinate's trust, so one noisy step does not throw
   * the run's other samples away. The run's own trusted flag is stored unchanged.
   */
  PER_COORDINATE
}

package dev.cipolicy.gate;

/** One of the two limits of a band. */
public enum Limit {
  /** The lower limit. */
  LOWER,
  /** The upper limit. */
  UPPER
}

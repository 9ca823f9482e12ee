package dev.cipolicy.gate;

/** Why a robust model declined to judge. */
public enum Inconclusive {
  /** Every trusted value is (nearly) the same, so the model's spread is zero: any deviation would be infinite. */
  ZERO_SPREAD,
  /** The trusted values form two separated clusters: no single centre describes them. */
  BIMODAL
}

package dev.cipolicy.gate;

/** What the hook did. */
public enum HookAction {
  /** A baseline-writing run wrote its run and samples. */
  WROTE_BASELINE,
  /**
   * A baseline-writing run whose CI run had already written this series (a retried write, or another attempt
   * of the run): nothing new was written.
   */
  DUPLICATE_WRITE,
  /** The test declares no gate: nothing evaluated, nothing written. */
  NO_GATE_DECLARED,
  /** A shadow run reported its verdicts; nothing written. */
  SHADOW_REPORTED,
  /** A baseline-writing run was rejected before anything was written (a non-finite value). */
  REJECTED,
  /** Something inside the gate failed; reported here, never thrown. Nothing was written. */
  FAILED
}

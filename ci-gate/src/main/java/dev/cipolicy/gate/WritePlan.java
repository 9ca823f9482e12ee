package dev.cipolicy.gate;

/**
 * What a baseline-writing run writes: one run with one sample per coordinate, or nothing and
 * why. Computed before any write, so a rejected plan writes nothing at all.
 */
public sealed interface WritePlan permits WritePlan.Write, WritePlan.Skip, WritePlan.Reject {

  /**
   * Write this run.
   *
   * @param run the run and its samples
   */
  record Write(RunRecord run) implements WritePlan {}

  /**
   * Write nothing: the test declares no gate.
   *
   * @param reason why nothing is written
   */
  record Skip(String reason) implements WritePlan {}

  /**
   * Write nothing: a selected value is not finite, so the run is rejected before anything is written.
   *
   * @param reason which value, at which coordinate
   */
  record Reject(String reason) implements WritePlan {}
}

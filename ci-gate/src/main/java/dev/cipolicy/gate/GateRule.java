package dev.cipolicy.gate;

/**
 * A rule to backtest with {@link Replay}: a gate, the model that decides, and how level shifts are
 * handled.
 *
 * @param spec the gate (its constraint is what the band uses)
 * @param model the deciding model
 * @param levelShiftAfter consecutive agreeing out-of-band values that propose a level shift; 0 is off
 * @param acceptLevelShifts whether the replay accepts each proposal, as an operator would
 */
public record GateRule(GateSpec spec, GateModel model, int levelShiftAfter, boolean acceptLevelShifts) {
  /** Validates the level shift count. */
  public GateRule {
    if (spec == null || model == null || levelShiftAfter < 0 || levelShiftAfter == 1) {
      throw new IllegalArgumentException("a rule needs a spec, a model and a level shift count of 0 or >= 2");
    }
  }

  /**
   * A rule with the model, no quarantine.
   *
   * @param spec the gate
   * @param model the deciding model
   * @return the rule
   */
  public static GateRule of(GateSpec spec, GateModel model) {
    return new GateRule(spec, model, 0, false);
  }
}

package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;

/**
 * One judged point of a series' history: metric key, canonical steps key, canonical
 * constraint key and step. A gate on {@code last} records at step {@value #LAST_STEP}, so that runs of
 * any length share one history; changing a gate's steps or constraint starts a new history.
 *
 * @param metricKey the metric, e.g. {@code train/grad_norm}
 * @param stepsKey the canonical steps key, e.g. {@code all}
 * @param constraintKey the canonical constraint key
 * @param step the step index, or {@value #LAST_STEP} for {@code last}
 */
public record Coordinate(String metricKey, String stepsKey, String constraintKey, int step) {
  /** The step of a {@code last} gate. */
  public static final int LAST_STEP = -1;

  /** Validates the components. */
  public Coordinate {
    if (metricKey == null || stepsKey == null || constraintKey == null || step < LAST_STEP) {
      throw new InvalidInputException("a coordinate needs a metric key, a steps key, a constraint key and a step"
          + " >= " + LAST_STEP + ", got step " + step);
    }
  }

  /**
   * The coordinate of a gate at a step.
   *
   * @param spec the gate
   * @param step the step, or {@value #LAST_STEP}
   * @return the coordinate
   */
  public static Coordinate of(GateSpec spec, int step) {
    return new Coordinate(spec.metricKey(), spec.stepsKey(), spec.constraintKey(), step);
  }

  /**
   * The step as written in messages.
   *
   * @return {@code last} or the step number
   */
  public String stepLabel() {
    return step == LAST_STEP ? "last" : Integer.toString(step);
  }

  @Override
  public String toString() {
    return metricKey + "[" + stepLabel() + "] steps=" + stepsKey + " constraint=" + constraintKey;
  }
}

package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;

/**
 * One value a baseline run writes for one coordinate.
 *
 * @param coordinate the coordinate
 * @param value the value; must be finite
 * @param trusted whether it joins the baseline
 */
public record Sample(Coordinate coordinate, double value, boolean trusted) {
  /** Rejects a non-finite value. */
  public Sample {
    if (coordinate == null) {
      throw new InvalidInputException("a sample needs a coordinate");
    }
    if (!Double.isFinite(value)) {
      throw new InvalidInputException("the value of " + coordinate + " is not finite: " + value
          + "; a baseline stores finite values only");
    }
  }
}

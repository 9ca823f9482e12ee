package dev.cipolicy.queue.tck;

import java.util.function.ToIntFunction;

/** The model checks' choice of an operation: a generated roll mapped onto weighted constants. */
final class WeightedPick {

  private WeightedPick() {}

  /**
   * The constant a roll lands on when each constant takes as many consecutive values as its weight, the
   * roll taken modulo the sum of the weights.
   */
  static <E> E pick(E[] values, ToIntFunction<E> weight, int roll) {
    int total = 0;
    for (E value : values) {
      total += weight.applyAsInt(value);
    }
    int r = Math.floorMod(roll, total);
    for (E value : values) {
      if (r < weight.applyAsInt(value)) {
        return value;
      }
      r -= weight.applyAsInt(value);
    }
    throw new IllegalStateException("no value for roll " + roll);
  }
}

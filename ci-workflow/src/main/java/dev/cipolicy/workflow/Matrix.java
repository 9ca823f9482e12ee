package dev.cipolicy.workflow;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.api.value.ValueCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A job's {@code strategy}: the matrix legs and how they are run.
 *
 * @param legs one entry per leg: the leg's matrix values (empty maps when only the count is known)
 * @param failFast {@code fail-fast} (GitHub's default is true): a failing leg cancels the others
 * @param maxParallel {@code max-parallel}, when set
 * @param location where {@code strategy:} is
 * @param dynamic the expression the matrix comes from when it is computed at run time (a
 *     {@code ${{ fromJSON(...) }}}); its legs are then not known and {@code legs} holds one empty leg
 * @param maxParallelExpression {@code max-parallel} when it is an expression (e.g. one runner under a
 *     throttled cadence), decided per run; {@code maxParallel} is then empty
 */
public record Matrix(List<Map<String, ExprValue>> legs, boolean failFast, Optional<Integer> maxParallel,
    SourceLocation location, Optional<String> dynamic, Optional<String> maxParallelExpression) {
  /** Validates the counts and copies the legs. */
  public Matrix {
    List<Map<String, ExprValue>> copy = new ArrayList<>();
    for (Map<String, ExprValue> leg : legs) {
      copy.add(Map.copyOf(leg));
    }
    legs = List.copyOf(copy);
    ValueCheck.of("Matrix").atLeast("legs", legs.size(), 1)
        .require(maxParallel.orElse(1) >= 1, "maxParallel", () -> "must be at least 1, got " + maxParallel.orElse(0))
        .require(maxParallel.isEmpty() || maxParallelExpression.isEmpty(), "maxParallel",
            () -> "is either a number or an expression, not both")
        .done();
  }

  /**
   * A matrix whose {@code max-parallel} is a number or not set.
   *
   * @param legs one entry per leg
   * @param failFast {@code fail-fast}
   * @param maxParallel {@code max-parallel}, when set
   * @param location where {@code strategy:} is
   * @param dynamic the expression of a matrix computed at run time
   */
  public Matrix(List<Map<String, ExprValue>> legs, boolean failFast, Optional<Integer> maxParallel,
      SourceLocation location, Optional<String> dynamic) {
    this(legs, failFast, maxParallel, location, dynamic, Optional.empty());
  }

  /**
   * This matrix with {@code max-parallel} given by an expression.
   *
   * @param expression the {@code ${{ }}} text as written
   * @return the new matrix
   */
  public Matrix withMaxParallelExpression(String expression) {
    return new Matrix(legs, failFast, Optional.empty(), location, dynamic, Optional.of(expression));
  }

  /**
   * A matrix whose legs are known.
   *
   * @param legs one entry per leg
   * @param failFast {@code fail-fast}
   * @param maxParallel {@code max-parallel}, when set
   * @param location where {@code strategy:} is
   */
  public Matrix(List<Map<String, ExprValue>> legs, boolean failFast, Optional<Integer> maxParallel,
      SourceLocation location) {
    this(legs, failFast, maxParallel, location, Optional.empty());
  }

  /**
   * A matrix computed at run time, e.g. {@code matrix: ${{ fromJSON(needs.plan.outputs.suites) }}}: one leg
   * of unknown values.
   *
   * @param expression the expression as written
   * @param failFast {@code fail-fast}
   * @param maxParallel {@code max-parallel}, when set
   * @param location where {@code strategy:} is
   * @return the matrix
   */
  public static Matrix dynamic(String expression, boolean failFast, Optional<Integer> maxParallel,
      SourceLocation location) {
    return new Matrix(List.of(Map.of()), failFast, maxParallel, location, Optional.of(expression));
  }

  /**
   * Whether the legs are computed at run time.
   *
   * @return whether {@link #dynamic} is present
   */
  public boolean isDynamic() {
    return dynamic.isPresent();
  }

  /**
   * A matrix of which only the number of legs is known.
   *
   * @param count the number of legs, at least 1
   * @param failFast {@code fail-fast}
   * @param location where {@code strategy:} is
   * @return the matrix
   */
  public static Matrix ofCount(int count, boolean failFast, SourceLocation location) {
    List<Map<String, ExprValue>> legs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      legs.add(Map.of());
    }
    return new Matrix(legs, failFast, Optional.empty(), location);
  }
}

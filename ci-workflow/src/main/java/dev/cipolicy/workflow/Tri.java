package dev.cipolicy.workflow;

/**
 * A three-valued truth: the truthiness of an expression whose inputs may be unknown to the simulation.
 * {@link #and} and {@link #or} are Kleene's: {@code FALSE.and(UNKNOWN)} is {@code FALSE},
 * {@code TRUE.and(UNKNOWN)} is {@code UNKNOWN}.
 */
public enum Tri {
  /** Known to be true (truthy). */
  TRUE,
  /** Known to be false (falsy). */
  FALSE,
  /** Depends on something the simulation does not know. */
  UNKNOWN;

  /**
   * The truth of a boolean.
   *
   * @param b the boolean
   * @return {@link #TRUE} or {@link #FALSE}
   */
  public static Tri of(boolean b) {
    return b ? TRUE : FALSE;
  }

  /**
   * Kleene conjunction.
   *
   * @param other the other truth
   * @return false when either is false, true when both are true, unknown otherwise
   */
  public Tri and(Tri other) {
    if (this == FALSE || other == FALSE) {
      return FALSE;
    }
    return this == TRUE && other == TRUE ? TRUE : UNKNOWN;
  }

  /**
   * Kleene disjunction.
   *
   * @param other the other truth
   * @return true when either is true, false when both are false, unknown otherwise
   */
  public Tri or(Tri other) {
    if (this == TRUE || other == TRUE) {
      return TRUE;
    }
    return this == FALSE && other == FALSE ? FALSE : UNKNOWN;
  }

  /**
   * Negation.
   *
   * @return true for false, false for true, unknown for unknown
   */
  public Tri not() {
    return this == UNKNOWN ? UNKNOWN : of(this == FALSE);
  }

  /** The lower-case word: {@code true}, {@code false} or {@code unknown}. */
  @Override
  public String toString() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}

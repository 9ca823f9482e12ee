package dev.cipolicy.workflow;

/** What an expression is evaluated against: the contexts and the status functions of one job. */
public interface ExpressionEnvironment {
  /**
   * A context by its lower-case name ({@code github}, {@code needs}, {@code inputs}, {@code vars}, ...).
   *
   * @param name the lower-case name
   * @return its value; {@link ExprValue.Unknown} for a context the evaluation does not know
   */
  ExprValue context(String name);

  /**
   * The value of a status function.
   *
   * @param function the function
   * @return its value and why
   */
  StatusCheck status(StatusFunction function);

  /**
   * An environment that knows no context and no job status: every context and status function but
   * {@code always()} is unknown.
   *
   * @return the environment
   */
  static ExpressionEnvironment empty() {
    return new ExpressionEnvironment() {
      @Override
      public ExprValue context(String name) {
        return new ExprValue.Unknown(name, Tri.UNKNOWN);
      }

      @Override
      public StatusCheck status(StatusFunction function) {
        return function == StatusFunction.ALWAYS ? new StatusCheck(Tri.TRUE, "always")
            : new StatusCheck(Tri.UNKNOWN, "no job status is known");
      }
    };
  }
}

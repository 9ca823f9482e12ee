/**
 * The metric gate: verdicts for a test's metrics against the history of trusted baselines, with the
 * {@code MetricHistoryStore} port and its in-memory adapter.
 */
module dev.cipolicy.gate {
  requires transitive dev.cipolicy.api;
  requires static transitive org.jspecify;
  // The value types' @Value.Immutable and friends: compile time only (the processor generates plain Java).
  requires static org.immutables.value;
  requires static java.compiler;

  exports dev.cipolicy.gate;
  exports dev.cipolicy.gate.memory;
}

/** The compatibility kit of the metric gate's {@code MetricHistoryStore} port: JUnit 5 tests to extend. */
module dev.cipolicy.gate.tck {
  requires transitive dev.cipolicy.gate;
  requires static transitive org.jspecify;
  // The kit's classes carry JUnit annotations and lifecycle methods that an adapter's test class inherits.
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;
  // QuickTheories has no module name of its own: this is the name derived from its jar (quicktheories-N.jar).
  requires quicktheories;

  exports dev.cipolicy.gate.tck;
  // JUnit finds and calls the inherited test methods reflectively.
  opens dev.cipolicy.gate.tck to org.junit.platform.commons;
}

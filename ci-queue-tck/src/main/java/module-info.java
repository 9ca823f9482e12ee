/** The compatibility kit of the job queue's {@code QueueStore} port: JUnit 5 tests to extend. */
module dev.cipolicy.queue.tck {
  requires transitive dev.cipolicy.queue;
  requires static transitive org.jspecify;
  // The kit's classes carry JUnit annotations and lifecycle methods that a store's test class inherits.
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;
  // QuickTheories has no module name of its own: this is the name derived from its jar (quicktheories-N.jar).
  requires quicktheories;

  exports dev.cipolicy.queue.tck;
  // JUnit finds and calls the inherited test methods reflectively.
  opens dev.cipolicy.queue.tck to org.junit.platform.commons;
}

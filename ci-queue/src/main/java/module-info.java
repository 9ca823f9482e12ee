/**
 * The job queue: the engine ({@code JobQueue}, {@code QueueOrder}), its values, the scheduling rules, the
 * storage port and the embedded in-memory store.
 */
module dev.cipolicy.queue {
  requires transitive dev.cipolicy.api;
  requires static transitive org.jspecify;
  // The value types' @Value.Immutable and friends: compile time only (the processor generates plain Java).
  requires static org.immutables.value;
  requires static java.compiler;

  exports dev.cipolicy.queue;
  exports dev.cipolicy.queue.memory;
  exports dev.cipolicy.queue.model;
  exports dev.cipolicy.queue.placement;
  exports dev.cipolicy.queue.spi;
}

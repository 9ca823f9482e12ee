/**
 * The collector runtime: claims, runs and reports the jobs of one collector tag, with Micrometer meters.
 */
module dev.cipolicy.queue.worker {
  requires transitive dev.cipolicy.queue;
  requires static transitive org.jspecify;
  // The runtime's builder takes, and its meters are registered in, a host's MeterRegistry.
  requires transitive micrometer.core;

  exports dev.cipolicy.queue.worker;
}

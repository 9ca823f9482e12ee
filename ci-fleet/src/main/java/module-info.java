/**
 * The host side of GPU CI on the fleet: a host's devices, per-job git workspaces, a CI job's arguments, the
 * process a host starts for a job, and the fleet server: the site loop, the status page and its JSON API.
 */
module dev.cipolicy.fleet {
  requires transitive dev.cipolicy.queue;
  // The collector runtime whose JobRunner port CiJobRunner implements.
  requires transitive dev.cipolicy.queue.worker;
  requires static transitive org.jspecify;
  requires static org.immutables.value;
  requires static java.compiler;
  // Internal: the streaming reader and writer of a CI job's JSON arguments.
  requires com.fasterxml.jackson.core;
  // Internal: the fleet server's HTTP side (routes, the page and its API on Jetty); no Javalin type is exported.
  requires io.javalin;

  exports dev.cipolicy.fleet.collector;
  exports dev.cipolicy.fleet.host;
  exports dev.cipolicy.fleet.job;
  exports dev.cipolicy.fleet.server;
  exports dev.cipolicy.fleet.workspace;
}

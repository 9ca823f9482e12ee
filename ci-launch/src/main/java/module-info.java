/**
 * The ports a launcher is written against (commands, environment, file system view, clock, scratchpad) and
 * their production adapters.
 */
module dev.cipolicy.launch {
  requires transitive dev.cipolicy.api;
  requires static transitive org.jspecify;

  exports dev.cipolicy.launch;
  exports dev.cipolicy.launch.system;
}

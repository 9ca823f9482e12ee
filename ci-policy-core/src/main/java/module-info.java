/**
 * The policy engine: resolves triggers, cadences, labels and run policies over ci-policy-api values, loads
 * policy documents from YAML or JSON text, matches paths, reads diffs and computes cron firing times.
 */
module dev.cipolicy.core {
  // The engine's parameters and results are ci-policy-api values.
  requires transitive dev.cipolicy.api;
  requires static transitive org.jspecify;
  // Internal: the streaming YAML/JSON reader of dev.cipolicy.core.load and the cron parser of
  // dev.cipolicy.core.schedule; none of their types appears in the exported API.
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.dataformat.yaml;
  requires org.yaml.snakeyaml;
  requires com.cronutils;

  exports dev.cipolicy.core;
  exports dev.cipolicy.core.diff;
  exports dev.cipolicy.core.load;
  exports dev.cipolicy.core.paths;
  exports dev.cipolicy.core.schedule;
}

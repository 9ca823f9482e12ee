/**
 * The GitHub Actions model: workflow files read into jobs, expressions and their evaluation, the simulation of
 * which jobs run for an event, and the lint of a policy's rules on workflow files.
 */
module dev.cipolicy.workflow {
  // The policy a workflow is linted against, and the document reader the loader shares with the policy loader.
  requires transitive dev.cipolicy.core;
  requires transitive dev.cipolicy.api;
  requires static transitive org.jspecify;

  exports dev.cipolicy.workflow;
  exports dev.cipolicy.workflow.lint;
  exports dev.cipolicy.workflow.load;
}

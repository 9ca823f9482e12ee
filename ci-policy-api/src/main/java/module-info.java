/**
 * The public vocabulary of ci-policy: the policy model, the run, stage, suite, gate and concurrency values,
 * and the exceptions every module throws. No I/O; the one third-party library at run time is RE2/J, inside
 * {@code dev.cipolicy.api.pattern} and never in a signature.
 */
// "module": the modules of the qualified export below are compiled after this one (javac: module not found).
@SuppressWarnings("module")
module dev.cipolicy.api {
  // @NullMarked and @Nullable: compile-time information for the host's compiler and nullness checker, nothing
  // reads them at run time. Transitive: a module that reads ours sees them too (when it has the jar).
  requires static transitive org.jspecify;
  // The value types' @Value.Immutable and friends: compile time only (the processor generates plain Java).
  requires static org.immutables.value;
  // The JDK's source-retained @Generated on the generated Immutable* classes (ValueStyle).
  requires static java.compiler;
  // Linear-time matching of user-supplied name patterns (suite_naming); the jar has no module name.
  requires re2j;

  exports dev.cipolicy.api;
  exports dev.cipolicy.api.concurrency;
  exports dev.cipolicy.api.gate;
  exports dev.cipolicy.api.pattern;
  exports dev.cipolicy.api.policy;
  exports dev.cipolicy.api.run;
  exports dev.cipolicy.api.stage;
  exports dev.cipolicy.api.suite;
  // Support of the value types (ValueStyle, MissingFieldException, ValueCheck): only the modules whose values
  // use it see it; hosts never name these types. A new module with Immutables values joins this list.
  exports dev.cipolicy.api.value to dev.cipolicy.core, dev.cipolicy.workflow, dev.cipolicy.gate, dev.cipolicy.queue,
      dev.cipolicy.fleet;
}

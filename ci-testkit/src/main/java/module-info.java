/**
 * Snapshot tests of launchers: test doubles of the launch ports, golden files and the JUnit 5 extension.
 * The extension calls a launcher's entrypoints reflectively: a host whose tests run on the module path
 * opens the launcher's package to this module.
 */
module dev.cipolicy.testkit {
  requires transitive dev.cipolicy.launch;
  requires static transitive org.jspecify;
  // The extension and its assertion errors (opentest4j comes with the JUnit API).
  requires transitive org.junit.jupiter.api;
  // The unified diff shown when a recording differs from its golden file.
  requires io.github.javadiffutils;

  exports dev.cipolicy.testkit.doubles;
  exports dev.cipolicy.testkit.golden;
  exports dev.cipolicy.testkit.snapshot;
}

/**
 * Snapshot tests of launchers: {@link dev.cipolicy.testkit.snapshot.LauncherSnapshots} discovers every
 * entrypoint of a launcher class, runs each twice in fresh sandboxes on frozen ports, applies the seed's
 * rules (an entrypoint that issues no command fails, unless a named allowance says it must issue none),
 * and compares the scrubbed recording with its golden file, or rewrites it in update mode; golden files
 * without an entrypoint fail the run. {@link dev.cipolicy.testkit.snapshot.LauncherSnapshotExtension}
 * runs it as JUnit 5 tests, one per entrypoint, from a short test class.
 */
@NullMarked
package dev.cipolicy.testkit.snapshot;

import org.jspecify.annotations.NullMarked;

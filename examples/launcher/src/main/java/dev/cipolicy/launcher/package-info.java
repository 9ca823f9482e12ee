/**
 * An example launcher written against the ci-testkit ports: {@link dev.cipolicy.launcher.StageLauncher}
 * builds and runs the {@code run_suite}-style commands of every shard of a suite of a policy. A host of the
 * public API, snapshot-tested with the kit.
 */
@NullMarked
package dev.cipolicy.launcher;

import org.jspecify.annotations.NullMarked;

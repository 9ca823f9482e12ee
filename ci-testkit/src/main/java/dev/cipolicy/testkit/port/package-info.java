/**
 * The ports a launcher is written against: {@link dev.cipolicy.testkit.port.CommandExecutor} (one node, one
 * named node or every node), {@link dev.cipolicy.testkit.port.Environment},
 * {@link dev.cipolicy.testkit.port.FileSystemView}, {@link java.time.Clock} and
 * {@link dev.cipolicy.testkit.port.Scratchpad} (run ids and generated files), bundled in
 * {@link dev.cipolicy.testkit.port.LaunchPorts}. A launcher that reaches the machine only through these
 * is frozen structurally in tests: nothing global is patched. The interfaces do no I/O themselves; the
 * values ({@link dev.cipolicy.testkit.port.Command}, {@link dev.cipolicy.testkit.port.CommandResult}) are
 * immutable.
 */
@NullMarked
package dev.cipolicy.testkit.port;

import org.jspecify.annotations.NullMarked;

/**
 * The ports a launcher is written against: {@link dev.cipolicy.launch.CommandExecutor} (one node, one
 * named node or every node), {@link dev.cipolicy.launch.Environment},
 * {@link dev.cipolicy.launch.FileSystemView}, {@link java.time.Clock} and
 * {@link dev.cipolicy.launch.Scratchpad} (run ids and generated files), bundled in
 * {@link dev.cipolicy.launch.LaunchPorts}. A launcher that reaches the machine only through these
 * is frozen structurally in tests: nothing global is patched. The interfaces do no I/O themselves; the
 * values ({@link dev.cipolicy.launch.Command}, {@link dev.cipolicy.launch.CommandResult}) are
 * immutable. {@link dev.cipolicy.launch.NotAnEntrypoint} marks a public launcher method that the snapshot
 * kit's entrypoint discovery skips.
 */
@NullMarked
package dev.cipolicy.launch;

import org.jspecify.annotations.NullMarked;

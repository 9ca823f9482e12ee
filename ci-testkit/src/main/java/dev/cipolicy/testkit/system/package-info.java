/**
 * Production adapters of the launcher ports: {@link dev.cipolicy.testkit.system.SystemPorts} wires the
 * process environment, the local file system, the system clock, a temporary-file scratchpad and a
 * {@link dev.cipolicy.testkit.system.ProcessCommandExecutor} that starts real processes on this node.
 */
@NullMarked
package dev.cipolicy.testkit.system;

import org.jspecify.annotations.NullMarked;

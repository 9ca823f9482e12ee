/**
 * Production adapters of the launcher ports: {@link dev.cipolicy.launch.system.SystemPorts} wires the
 * process environment, the local file system, the system clock, a temporary-file scratchpad and a
 * {@link dev.cipolicy.launch.system.ProcessCommandExecutor} that starts real processes on this node.
 */
@NullMarked
package dev.cipolicy.launch.system;

import org.jspecify.annotations.NullMarked;

/**
 * Production adapters of the launcher ports: {@link dev.cipolicy.launch.system.SystemPorts} wires the
 * process environment, the local file system, the system clock, a temporary-file scratchpad and a command
 * executor that starts real processes on this node. {@code SystemPorts.create} is the package's only entry
 * point; the adapters themselves are package-private.
 */
@NullMarked
package dev.cipolicy.launch.system;

import org.jspecify.annotations.NullMarked;

/**
 * The collector daemon's way of running CI jobs: {@link dev.cipolicy.fleet.collector.CiJobRunner} is the
 * {@link dev.cipolicy.queue.worker.JobRunner} that reads a job's CI arguments, checks its commit out, and runs its
 * command on the lease's devices, on the host or in a container.
 */
@NullMarked
package dev.cipolicy.fleet.collector;

import org.jspecify.annotations.NullMarked;

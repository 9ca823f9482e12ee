/**
 * A CI job as the fleet carries it: {@link dev.cipolicy.fleet.job.CiJob} is what a GPU host needs to run one suite
 * shard of a CI run (the commit, the command, its environment, the variables that carry the granted devices, the
 * container image), and {@link dev.cipolicy.fleet.job.CiJobArgs} writes it into the queue job's arguments and
 * reads it back, refusing anything a collector should not run.
 */
@NullMarked
package dev.cipolicy.fleet.job;

import org.jspecify.annotations.NullMarked;

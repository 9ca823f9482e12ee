/**
 * A discrete-event simulation of the reference GPU fleet in simulated time: today's static runners against
 * the job queue on the same hosts. See docs/fleet-simulation.md.
 */
@NullMarked
package dev.cipolicy.benchmarks.fleet;

import org.jspecify.annotations.NullMarked;

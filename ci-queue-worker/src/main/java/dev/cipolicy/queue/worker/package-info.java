/**
 * The collector runtime: {@link dev.cipolicy.queue.worker.CollectorRuntime} claims the jobs of one collector tag
 * from a {@link dev.cipolicy.queue.JobQueue}, runs each on its own thread through a host's
 * {@link dev.cipolicy.queue.worker.JobRunner} (at most a bounded number at once), renews their leases,
 * stops a job whose request was cancelled, reports its result or a classified failure, keeps the collector
 * online while idle and busy, and shuts down gracefully. {@link dev.cipolicy.queue.worker.ProcessJobRunner}
 * runs a job as an operating-system process on the lease's GPU devices. Unlike the queue engine, this package
 * owns threads and starts processes; time, sleeping and wake-ups are ports
 * ({@link java.time.InstantSource}, {@link dev.cipolicy.queue.worker.Sleeper},
 * {@link dev.cipolicy.queue.worker.Wakeups}) so that tests and hosts can replace them.
 */
@NullMarked
package dev.cipolicy.queue.worker;

import org.jspecify.annotations.NullMarked;

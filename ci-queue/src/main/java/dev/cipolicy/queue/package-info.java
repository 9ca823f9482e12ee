/**
 * The job-queue engine: {@link dev.cipolicy.queue.JobQueue} (site tick, claims, fenced job updates,
 * cancellation, collectors), the pure {@link dev.cipolicy.queue.QueueOrder} with its status view and
 * ETA, and the settings that parameterize both. Time comes from a {@link java.time.Clock}; storage from
 * a {@link dev.cipolicy.queue.spi.QueueStore}. Nothing here performs I/O or owns a thread.
 */
@NullMarked
package dev.cipolicy.queue;

import org.jspecify.annotations.NullMarked;

/**
 * The compatibility kit of the job queue: {@link dev.cipolicy.queue.tck.QueueStoreCompatibilityKit}, the
 * contract, model-based, concurrency and liveness tests every {@link dev.cipolicy.queue.spi.QueueStore}
 * must pass, with the {@link dev.cipolicy.queue.tck.SettableClock} they run on and the
 * {@link dev.cipolicy.queue.tck.ReferenceQueueStore} the model-based test compares against. Unlike the
 * engine, this package may start threads.
 */
@NullMarked
package dev.cipolicy.queue.tck;

import org.jspecify.annotations.NullMarked;

/**
 * The storage port of the job queue: {@link dev.cipolicy.queue.spi.QueueStore}, the values it stores
 * (requests, jobs, leases, collectors) and the result values of its atomic, conditional operations. A
 * store author implements {@code QueueStore} and proves it with the compatibility kit in
 * {@code dev.cipolicy.queue.tck}.
 */
@NullMarked
package dev.cipolicy.queue.spi;

import org.jspecify.annotations.NullMarked;

/**
 * The embedded, thread-safe in-memory {@link dev.cipolicy.queue.spi.QueueStore}: the default store of
 * the examples and of tests. It synchronizes with one monitor and owns no thread.
 */
@NullMarked
package dev.cipolicy.queue.memory;

import org.jspecify.annotations.NullMarked;

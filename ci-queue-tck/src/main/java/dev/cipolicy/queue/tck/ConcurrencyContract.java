package dev.cipolicy.queue.tck;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kit's multi-threaded test: many collector threads and two sites on one store.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Concurrency" group.
 */
abstract class ConcurrencyContract extends KitGroup {

  ConcurrencyContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @Timeout(120)
  @DisplayName("collectors and two sites on many threads: every job reaches exactly one terminal state")
  void manyThreads() throws InterruptedException {
    new QueueConcurrencyCheck(this::newStore, concurrentRequests()).run();
  }
}

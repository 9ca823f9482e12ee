package dev.cipolicy.queue.tck;

import dev.cipolicy.queue.memory.InMemoryQueueStore;
import dev.cipolicy.queue.spi.QueueStore;
import java.time.InstantSource;

/** The compatibility kit run against the embedded in-memory store. */
class InMemoryQueueStoreCompatibilityTest extends QueueStoreCompatibilityKit {
  @Override
  protected QueueStore newStore(InstantSource clock) {
    return new InMemoryQueueStore(clock);
  }
}

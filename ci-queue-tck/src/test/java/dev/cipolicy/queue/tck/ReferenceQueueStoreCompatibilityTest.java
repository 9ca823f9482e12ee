package dev.cipolicy.queue.tck;

import dev.cipolicy.queue.spi.QueueStore;
import java.time.InstantSource;

/** The compatibility kit run against the reference model itself, so that the model meets the contract too. */
class ReferenceQueueStoreCompatibilityTest extends QueueStoreCompatibilityKit {
  @Override
  protected QueueStore newStore(InstantSource clock) {
    return new ReferenceQueueStore(clock);
  }

  @Override
  protected int modelExamples() {
    return 20;
  }

  @Override
  protected int concurrentRequests() {
    return 30;
  }

  /** The model against itself proves little: 20,000 operations. */
  @Override
  protected int shareModelOperations() {
    return 20_000;
  }
}

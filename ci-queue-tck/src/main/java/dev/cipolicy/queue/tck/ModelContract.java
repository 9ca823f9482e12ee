package dev.cipolicy.queue.tck;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kit's model-based test: random command sequences run against the store and {@link ReferenceQueueStore}.
 *
 * <p>{@link QueueStoreCompatibilityKit} runs it as its "Model" group.
 */
abstract class ModelContract extends KitGroup {

  ModelContract(QueueStoreCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @Timeout(120)
  @DisplayName("random command sequences keep the store equal to the reference model and every invariant true")
  void modelBased() {
    new QueueModelCheck(this::newStore, modelExamples(), false, operatorControls()).run();
  }
}

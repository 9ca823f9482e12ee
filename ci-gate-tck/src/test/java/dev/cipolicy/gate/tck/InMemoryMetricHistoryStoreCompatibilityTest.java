package dev.cipolicy.gate.tck;

import dev.cipolicy.gate.MetricHistoryStore;
import dev.cipolicy.gate.memory.InMemoryMetricHistoryStore;

/** The in-memory adapter passes the compatibility kit. */
class InMemoryMetricHistoryStoreCompatibilityTest extends MetricHistoryStoreCompatibilityKit {
  @Override
  protected MetricHistoryStore newStore() {
    return new InMemoryMetricHistoryStore();
  }
}

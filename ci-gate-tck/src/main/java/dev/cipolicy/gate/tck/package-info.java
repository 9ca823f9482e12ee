/**
 * The compatibility kit of the {@link dev.cipolicy.gate.MetricHistoryStore} port: extend
 * {@link dev.cipolicy.gate.tck.MetricHistoryStoreCompatibilityKit} once per adapter.
 */
@NullMarked
package dev.cipolicy.gate.tck;

import org.jspecify.annotations.NullMarked;

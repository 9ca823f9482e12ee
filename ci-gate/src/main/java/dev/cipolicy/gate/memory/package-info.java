/**
 * The in-memory adapter of {@link dev.cipolicy.gate.MetricHistoryStore}: for tests, demonstrations and
 * hosts that persist a snapshot themselves (the CLI keeps one in a JSON file).
 */
@NullMarked
package dev.cipolicy.gate.memory;

import org.jspecify.annotations.NullMarked;

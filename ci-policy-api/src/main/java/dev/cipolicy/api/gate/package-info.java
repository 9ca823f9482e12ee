/**
 * Metric gate declarations as plain values: which metric a test gates, at which steps, with
 * which tolerance, and which direction is an improvement. The policy document's {@code gates.defaults}
 * table and a test's own declarations are both {@link dev.cipolicy.api.gate.GateDeclaration}s; the
 * {@code ci-gate} module resolves and evaluates them.
 */
@NullMarked
package dev.cipolicy.api.gate;

import org.jspecify.annotations.NullMarked;

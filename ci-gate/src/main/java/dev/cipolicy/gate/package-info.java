/**
 * The metric gate: a test's metric record is compared with the history of trusted baselines
 * and every gated coordinate gets a verdict with a structured explanation. Pure: history arrives through
 * the {@link dev.cipolicy.gate.MetricHistoryStore} port, time as explicit instants or a
 * {@link java.time.Clock}, and every failure is a value — the gate never changes a test's pass/fail.
 *
 * <pre>{@code
 * List<GateSpec> specs = Gates.resolve(declared, policy.gateDefaults());
 * GateResult result = GateEvaluator.of(GateOptions.defaults()).evaluate(series, specs, record, store);
 * result.verdicts().forEach(v -> System.out.println(v.explanation().sentence()));
 * }</pre>
 */
@NullMarked
package dev.cipolicy.gate;

import org.jspecify.annotations.NullMarked;

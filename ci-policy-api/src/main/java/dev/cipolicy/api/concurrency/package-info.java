/**
 * Typed concurrency: the events that ask a workflow for a run, what each does to the runs
 * already in flight, and the resulting decision. {@link dev.cipolicy.api.concurrency.WorkflowConcurrency}
 * is the part of a policy that declares a workflow's group prefix and actions;
 * {@code ConcurrencyPolicy} in ci-policy-core turns an event and the in-flight runs into a
 * {@link dev.cipolicy.api.concurrency.ConcurrencyDecision}.
 */
@NullMarked
package dev.cipolicy.api.concurrency;

import org.jspecify.annotations.NullMarked;

/**
 * The workflow lint: the invariants a policy and its GitHub Actions workflows must keep together, each proved
 * by simulating the workflows ({@link dev.cipolicy.workflow.lint.WorkflowLint}, one class per
 * {@link dev.cipolicy.workflow.lint.LintRule}). Pure: no I/O.
 */
@NullMarked
package dev.cipolicy.workflow.lint;

import org.jspecify.annotations.NullMarked;

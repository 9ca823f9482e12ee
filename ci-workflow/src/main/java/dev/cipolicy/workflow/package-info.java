/**
 * The GitHub Actions workflow model: the expression language of {@code if:} and {@code ${{ }}}
 * ({@link dev.cipolicy.workflow.Expression}), the job graph as values
 * ({@link dev.cipolicy.workflow.Workflow}, {@link dev.cipolicy.workflow.Job}) and the simulation of
 * GitHub's job rules ({@link dev.cipolicy.workflow.WorkflowSimulator}). Pure: no I/O; workflow files are
 * read by {@code dev.cipolicy.workflow.load}, and linted against a policy by {@code dev.cipolicy.workflow.lint}.
 */
@NullMarked
package dev.cipolicy.workflow;

import org.jspecify.annotations.NullMarked;

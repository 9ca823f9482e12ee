/**
 * The GitHub Actions workflow model: the expression language of {@code if:} and {@code ${{ }}}
 * ({@link dev.cipolicy.core.workflow.Expression}), the job graph as values
 * ({@link dev.cipolicy.core.workflow.Workflow}, {@link dev.cipolicy.core.workflow.Job}) and the simulation of
 * GitHub's job rules ({@link dev.cipolicy.core.workflow.WorkflowSimulator}). Pure: no I/O; reading workflow
 * files is the loading adapter's job.
 */
@NullMarked
package dev.cipolicy.core.workflow;

import org.jspecify.annotations.NullMarked;

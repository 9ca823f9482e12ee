/**
 * Reading GitHub Actions workflow files into the model of {@code dev.cipolicy.workflow}
 * ({@link dev.cipolicy.workflow.load.WorkflowLoader}), with file, line and column in every error. The text goes
 * through core's document reader ({@code dev.cipolicy.core.load}); one class reads each section of a workflow.
 * It parses text handed in by the host and reads no files.
 */
@NullMarked
package dev.cipolicy.workflow.load;

import org.jspecify.annotations.NullMarked;

/**
 * Where a job runs on a GPU host: {@link dev.cipolicy.fleet.workspace.GitWorkspaces} checks the run's commit out
 * into a directory of its own, from one cached clone per remote, and removes it when the job ends.
 */
@NullMarked
package dev.cipolicy.fleet.workspace;

import org.jspecify.annotations.NullMarked;

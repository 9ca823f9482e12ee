/**
 * Changed files of a pull request: {@link dev.cipolicy.core.diff.ChangedFiles} parses the bytes of
 * {@code git diff --name-status -z -M} into entries, or says why the diff cannot be used (the caller
 * then prunes nothing: fail-open).
 */
@NullMarked
package dev.cipolicy.core.diff;

import org.jspecify.annotations.NullMarked;

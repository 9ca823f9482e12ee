/**
 * Golden files: the readable text format of a {@link dev.cipolicy.testkit.doubles.Recording}
 * ({@link dev.cipolicy.testkit.golden.GoldenFormat}), ordered named
 * {@link dev.cipolicy.testkit.golden.Scrubbers} that replace machine-specific text with placeholders,
 * the {@link dev.cipolicy.testkit.golden.UnifiedDiff} shown on a mismatch, the explicit
 * {@link dev.cipolicy.testkit.golden.UpdateMode} switch (refused on CI) and the
 * {@link dev.cipolicy.testkit.golden.GoldenDirectory} the files live in.
 */
@NullMarked
package dev.cipolicy.testkit.golden;

import org.jspecify.annotations.NullMarked;

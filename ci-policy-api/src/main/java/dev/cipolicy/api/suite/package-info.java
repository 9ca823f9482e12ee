/**
 * Test registrations and the decisions made from them: which tests of a suite run, in which shard,
 * with which timeouts, whether a failed file is retried, and how one file is rerun.
 */
@NullMarked
package dev.cipolicy.api.suite;

import org.jspecify.annotations.NullMarked;

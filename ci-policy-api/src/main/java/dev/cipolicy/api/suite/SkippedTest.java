package dev.cipolicy.api.suite;

/**
 * A test that would have been selected but is disabled.
 *
 * @param file the test file
 * @param reason why it is disabled
 */
public record SkippedTest(String file, String reason) {}

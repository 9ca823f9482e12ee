package dev.cipolicy.api.suite;

import java.util.Optional;

/**
 * Whether a failed test file may be retried, and which rule decided it.
 *
 * @param retriable whether a retry is allowed
 * @param rule the rule that fired: {@code timeout}, {@code non-retriable}, {@code metric-assertion},
 *     {@code assertion-error} or {@code no-match}
 * @param matched the token or pattern that matched, if any
 * @param reason a sentence explaining the decision
 */
public record RetryVerdict(boolean retriable, String rule, Optional<String> matched, String reason) {}

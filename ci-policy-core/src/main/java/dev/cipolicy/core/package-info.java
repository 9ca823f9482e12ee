/** The policy engine: {@link dev.cipolicy.core.PolicyResolver} resolves triggers, cadences, labels and run policies; pure functions over {@code ci-policy-api} values. */
@NullMarked
package dev.cipolicy.core;

import org.jspecify.annotations.NullMarked;

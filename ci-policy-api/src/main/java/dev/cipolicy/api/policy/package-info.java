/**
 * The immutable policy model: cadences, schedules, labels, scope rules, backends and suites. A
 * {@link dev.cipolicy.api.policy.Policy} is loaded from a YAML/JSON document or built in code.
 */
@NullMarked
package dev.cipolicy.api.policy;

import org.jspecify.annotations.NullMarked;

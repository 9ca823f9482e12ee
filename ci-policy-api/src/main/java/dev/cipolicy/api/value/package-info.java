/**
 * The project's own support for its value types: the Immutables style every ci-policy value type is
 * generated with, the exception its generated builders throw, and the checks its {@code @Value.Check}
 * methods share. These types are public only because the value types of every ci-policy module use them;
 * hosts never need them. A host builds a value with its type's {@code builder()}, e.g.
 * {@code Policy.builder()}, and catches {@link dev.cipolicy.api.InvalidValueException}.
 */
@NullMarked
package dev.cipolicy.api.value;

import org.jspecify.annotations.NullMarked;

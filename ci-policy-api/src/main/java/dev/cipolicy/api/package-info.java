/**
 * The public vocabulary of ci-policy: exceptions, explanations, warnings and source locations shared by
 * every module. Nothing here performs I/O or depends on a third-party type.
 */
@NullMarked
package dev.cipolicy.api;

import org.jspecify.annotations.NullMarked;

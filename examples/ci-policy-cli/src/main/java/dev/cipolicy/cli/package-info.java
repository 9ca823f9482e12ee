/** The {@code ci-policy} command-line front end for GitHub Actions; a host of the public API. */
@NullMarked
package dev.cipolicy.cli;

import org.jspecify.annotations.NullMarked;

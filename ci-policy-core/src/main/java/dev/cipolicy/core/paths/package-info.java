/**
 * Repository path globs compiled once into a single matcher: {@link dev.cipolicy.core.paths.GlobSet}
 * finds the first glob of a list that matches a path in time linear in the path's length, whatever the
 * number of globs.
 */
@NullMarked
package dev.cipolicy.core.paths;

import org.jspecify.annotations.NullMarked;

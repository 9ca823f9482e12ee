package dev.cipolicy.core;

import dev.cipolicy.api.SourceLocation;
import java.util.Optional;

/** Maps a field path of a policy (e.g. {@code schedules[1].cron}) to where it was written. */
@FunctionalInterface
public interface ProblemLocator {
  /** A locator for policies built in code: nothing has a location. */
  ProblemLocator NONE = path -> Optional.empty();

  /**
   * Finds where a field was written.
   *
   * @param path the field path
   * @return the location, if the policy came from a document
   */
  Optional<SourceLocation> locate(String path);
}

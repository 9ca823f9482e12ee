package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A baseline run to write: the series, where it came from, when, whether the run is trusted, and one
 * finite sample per coordinate. Building one with two samples of the same coordinate throws.
 *
 * @param series the series
 * @param provenance the CI run and commit
 * @param createdAt when the run was evaluated; history is ordered by it (ties by write order)
 * @param trusted whether the run as a whole is trusted (every coordinate PASS or INACTIVE)
 * @param samples the samples, one per coordinate
 */
public record RunRecord(SeriesKey series, Provenance provenance, Instant createdAt, boolean trusted,
    List<Sample> samples) {
  /** Copies the list and rejects a repeated coordinate. */
  public RunRecord {
    if (series == null || provenance == null || createdAt == null) {
      throw new InvalidInputException("a run record needs a series, a provenance and a time");
    }
    samples = List.copyOf(samples);
    Set<Coordinate> seen = new HashSet<>();
    for (Sample s : samples) {
      if (!seen.add(s.coordinate())) {
        throw new InvalidInputException("coordinate " + s.coordinate() + " appears twice in one run; a run"
            + " writes one sample per coordinate");
      }
    }
  }
}

package dev.cipolicy.gate;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The port through which the gate reads and writes baseline history. A run is written once
 * with its samples; reads return the newest trusted samples of each coordinate; revocation and
 * acceptance of a level shift change trust afterwards. Adapters: {@code InMemoryMetricHistoryStore}
 * here, a PostgreSQL adapter in {@code ci-postgres}; both must pass {@code MetricHistoryStoreCompatibilityKit}.
 *
 * <p>Ordering: "newest" is the latest {@link RunRecord#createdAt()}, ties broken by the later write. A
 * sample is <em>trusted</em> when it was written trusted (or made trusted by an accepted level shift)
 * and its run is not revoked. A sample is <em>visible</em> when its run is not revoked and it is not
 * older than the coordinate's accepted level shift, if any.
 *
 * <p>Errors: arguments that name nothing (an unknown run in a level shift) throw
 * {@code InvalidInputException}; storage failures throw {@link MetricStoreException}, and
 * {@link MetricStoreUnavailableException} when the store's database cannot be reached.
 */
public interface MetricHistoryStore extends HistorySource {

  /**
   * Reads, for each wanted coordinate, the newest visible trusted samples and the newest visible samples
   * of any trust, both newest first.
   *
   * @return every wanted coordinate that has at least one visible sample
   */
  @Override
  Map<Coordinate, CoordinateHistory> read(SeriesKey series, Set<Coordinate> coordinates,
      int trustedLimit, int recentLimit);

  /**
   * Writes a run and its samples, all or nothing — once per CI run. When the run's provenance carries a
   * {@linkplain Provenance#identity() CI run identity}, the write is idempotent: if a run of the same series
   * with the same repository and run id is already stored (written by this attempt or by an earlier one,
   * revoked or not), nothing is stored and the result is a {@linkplain WriteResult#duplicate() duplicate}
   * naming the run stored first. So a write retried after a lost acknowledgement, or repeated by a re-run of
   * the CI run, never adds a second measurement of one run. A run without an identity is always stored.
   *
   * @param run the run
   * @return the stored run's id, greater than every id given before; for a duplicate, the id of the run
   *     stored first
   */
  WriteResult write(RunRecord run);

  /**
   * Marks the runs named by the key untrusted. Idempotent: revoking again changes nothing and counts
   * {@code runsRevoked = 0}.
   *
   * @param revocation exactly one key
   * @return the counts
   */
  RevocationResult revoke(Revocation revocation);

  /**
   * Accepts a level shift of one coordinate: the samples of the given runs at the coordinate become
   * trusted, and from now on only samples at least as new as the oldest of them are visible.
   * Idempotent.
   *
   * @param series the series
   * @param coordinate the coordinate
   * @param runs the runs whose samples make the new level, all of this series, unrevoked, with a sample at
   *     the coordinate
   * @return how many samples became trusted
   * @throws dev.cipolicy.api.InvalidInputException when a run is unknown, revoked, of another series or
   *     has no sample at the coordinate, or the list is empty
   */
  int acceptLevelShift(SeriesKey series, Coordinate coordinate, List<RunId> runs);

  /**
   * Every sample of a coordinate from unrevoked runs, oldest first, whatever its trust or level; what
   * {@code Replay} backtests a rule over.
   *
   * @param series the series
   * @param coordinate the coordinate
   * @return the samples in time order
   */
  List<HistorySample> history(SeriesKey series, Coordinate coordinate);

  /**
   * The coordinates a series has samples for.
   *
   * @param series the series
   * @return the coordinates, in order of first write
   */
  List<Coordinate> coordinates(SeriesKey series);
}

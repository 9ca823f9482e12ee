package dev.cipolicy.gate;

import java.util.List;

/**
 * A proposal to accept a new level for a coordinate: the required number of consecutive out-of-band
 * values, all on the same side and agreeing with each other, sit around {@code toLevel}. Accepting it
 * ({@link MetricHistoryStore#acceptLevelShift}) makes those values trusted and starts the baseline at
 * the first of them; until then they stay untrusted and never leak into the baseline.
 *
 * @param coordinate the coordinate
 * @param side which limit the values are beyond
 * @param fromLevel the current centre of the baseline
 * @param toLevel the mean of the agreeing values
 * @param storedRuns the stored runs of the earlier agreeing values, newest first (the judged value's run
 *     is not stored yet)
 */
public record LevelShiftProposal(Coordinate coordinate, Limit side, double fromLevel, double toLevel,
    List<RunId> storedRuns) {
  /** Copies the list. */
  public LevelShiftProposal {
    storedRuns = List.copyOf(storedRuns);
  }
}

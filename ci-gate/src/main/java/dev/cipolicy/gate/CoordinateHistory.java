package dev.cipolicy.gate;

import java.util.List;

/**
 * What the gate reads about one coordinate, newest first: the trusted values that make the baseline,
 * and the most recent values of any trust, from which quarantine recognises a level shift. Neither list
 * holds a revoked run or a value from before an accepted level shift.
 *
 * @param trusted the newest trusted samples, newest first
 * @param recent the newest samples whatever their trust, newest first
 */
public record CoordinateHistory(List<HistorySample> trusted, List<HistorySample> recent) {
  /** The history of a coordinate never written. */
  public static final CoordinateHistory EMPTY = new CoordinateHistory(List.of(), List.of());

  /** Copies the lists. */
  public CoordinateHistory {
    trusted = List.copyOf(trusted);
    recent = List.copyOf(recent);
  }
}

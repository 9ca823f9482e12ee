package dev.cipolicy.queue.model;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * How every store keeps instants and durations: to the microsecond, what PostgreSQL's {@code timestamptz}
 * holds. A store truncates each instant it reads or derives before it compares or keeps it.
 */
public final class Precision {

  /** The unit every store keeps instants in. */
  public static final ChronoUnit UNIT = ChronoUnit.MICROS;

  private Precision() {}

  /**
   * An instant as every store keeps it: truncated to {@link #UNIT}, toward the past.
   *
   * @param instant any instant
   * @return the instant without its sub-microsecond part
   */
  @SuppressWarnings("JavaInstantGetSecondsGetNano") // the nano-of-second is what tells a whole microsecond
  public static Instant truncate(Instant instant) {
    Checks.present(instant, "instant");
    return instant.getNano() % 1_000 == 0 ? instant : instant.truncatedTo(UNIT);
  }
}

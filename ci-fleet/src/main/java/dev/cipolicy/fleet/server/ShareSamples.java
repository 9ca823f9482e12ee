package dev.cipolicy.fleet.server;

import dev.cipolicy.fleet.server.Api.ShareDto;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The share use over time: a bounded in-memory ring of samples of {@link ShareUse}'s bars, at most one per
 * {@link #every()} (the server offers one on each refresh of its view; the others are dropped). It holds
 * {@link #capacity()} samples, the oldest dropped first; with the server's defaults (one every 5 minutes, 8,928
 * samples) that is 31 days, the longest accounting window. It is lost when the server stops.
 */
public final class ShareSamples {
  /** The default spacing of samples. */
  public static final Duration DEFAULT_EVERY = Duration.ofMinutes(5);

  /** The default number of samples kept: 31 days at one every 5 minutes. */
  public static final int DEFAULT_CAPACITY = 31 * 24 * 12;

  /**
   * One sample.
   *
   * @param at when it was taken (the store's clock)
   * @param shares the share bars then
   */
  public record Sample(Instant at, List<ShareDto> shares) {
    /** Copies the bars. */
    public Sample {
      shares = List.copyOf(shares);
    }
  }

  private final Duration every;
  private final int capacity;
  private final ArrayDeque<Sample> ring = new ArrayDeque<>();

  /**
   * A ring.
   *
   * @param every the least spacing of two samples
   * @param capacity how many samples it keeps, at least 1
   */
  public ShareSamples(Duration every, int capacity) {
    if (capacity < 1 || every.isNegative()) {
      throw new IllegalArgumentException("a share-sample ring needs a capacity of at least 1 and a spacing of at "
          + "least 0, got " + capacity + " and " + every);
    }
    this.every = every;
    this.capacity = capacity;
  }

  /**
   * The least spacing of two samples.
   *
   * @return the spacing
   */
  public Duration every() {
    return every;
  }

  /**
   * How many samples it keeps.
   *
   * @return the capacity
   */
  public int capacity() {
    return capacity;
  }

  /**
   * Keeps a sample unless the last one is less than {@link #every()} older.
   *
   * @param at when
   * @param shares the bars
   * @return whether it was kept
   */
  public synchronized boolean offer(Instant at, List<ShareDto> shares) {
    Sample last = ring.peekLast();
    if (last != null && at.isBefore(last.at().plus(every))) {
      return false;
    }
    if (ring.size() == capacity) {
      ring.removeFirst();
    }
    ring.addLast(new Sample(at, shares));
    return true;
  }

  /**
   * The samples, oldest first.
   *
   * @return a copy
   */
  public synchronized List<Sample> samples() {
    return new ArrayList<>(ring);
  }
}

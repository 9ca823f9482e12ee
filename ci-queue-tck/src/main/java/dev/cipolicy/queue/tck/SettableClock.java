package dev.cipolicy.queue.tck;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that stands still until a test sets or advances it, or, made with {@link #ticking}, moves
 * by a fixed tick on every read; thread-safe, in UTC. The kit's tests run the engine on it, so that lease
 * expiry and heartbeat ages are exact and instantaneous; a ticking clock with a tick of a few nanoseconds
 * shows whether a store keeps the instants it is given at the precision the contract names.
 */
public final class SettableClock extends Clock {
  private final AtomicReference<Instant> now;
  private final Duration tick;

  /**
   * A clock standing at {@code start}.
   *
   * @param start the initial instant
   */
  public SettableClock(Instant start) {
    this(start, Duration.ZERO);
  }

  private SettableClock(Instant start, Duration tick) {
    this.now = new AtomicReference<>(start);
    this.tick = tick;
  }

  /**
   * A clock at {@code start} that moves forward by {@code tick} after every read of {@link #instant()}
   * (and can still be set and advanced).
   *
   * @param start the first instant it reads
   * @param tick how far each read moves it, not negative, e.g. {@code Duration.ofNanos(1_001)}
   * @return the clock
   * @throws InvalidQueueInputException when the tick is negative
   */
  public static SettableClock ticking(Instant start, Duration tick) {
    if (tick.isNegative()) {
      throw new InvalidQueueInputException("the tick of a SettableClock is " + tick + "; expected zero or more");
    }
    return new SettableClock(start, tick);
  }

  /**
   * A clock standing at an ISO-8601 instant.
   *
   * @param iso e.g. {@code 2026-01-01T00:00:00Z}
   * @return the clock
   */
  public static SettableClock at(String iso) {
    return new SettableClock(Instant.parse(iso));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a SettableClock is always in UTC");
  }

  /**
   * The clock's instant; a ticking clock then moves forward by its tick.
   *
   * @return the instant
   */
  @Override
  public Instant instant() {
    return Objects.requireNonNull(tick.isZero() ? now.get() : now.getAndUpdate(i -> i.plus(tick)));
  }

  /**
   * Sets the clock.
   *
   * @param instant the new instant
   */
  public void set(Instant instant) {
    now.set(instant);
  }

  /**
   * Moves the clock forward.
   *
   * @param duration how far
   * @return the new instant
   */
  public Instant advance(Duration duration) {
    return now.updateAndGet(i -> i.plus(duration));
  }
}

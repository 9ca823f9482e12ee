package dev.cipolicy.queue.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that stands still until a test sets or advances it; thread-safe, in UTC. The kit's
 * tests run the engine on it, so that lease expiry and heartbeat ages are exact and instantaneous.
 */
public final class SettableClock extends Clock {
  private final AtomicReference<Instant> now;

  /**
   * A clock standing at {@code start}.
   *
   * @param start the initial instant
   */
  public SettableClock(Instant start) {
    this.now = new AtomicReference<>(start);
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

  @Override
  public Instant instant() {
    return Objects.requireNonNull(now.get());
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

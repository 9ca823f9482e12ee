package dev.cipolicy.queue.worker;

import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.time.Duration;
import java.util.function.ToLongFunction;

/**
 * How an idle {@link CollectorRuntime} waits for work after a claim came back empty: until it is told that jobs of
 * its tag were queued, or for at most its claim interval (then it claims again anyway: polling is always the
 * fallback, and a wake-up is only a hint, the claim decides).
 *
 * <p>The collector reads {@link #generation} before each claim and passes it to {@link #awaitQueued} when the
 * claim is empty, so a job queued between the claim and the wait moves the generation and ends the wait at
 * once. PostgreSQL's {@code LISTEN}/{@code NOTIFY} listener of ci-postgres ({@code PostgresQueueWakeups}) has
 * exactly these two methods and adapts with two method references, without this module depending on it:
 *
 * <pre>{@code
 * PostgresQueueWakeups listener = PostgresQueueWakeups.start(dataSource, options);
 * Wakeups wakeups = Wakeups.of(listener::generation, listener::awaitQueued);
 * }</pre>
 *
 * <p>Implementations must be safe for use by several threads, and a wait must end with
 * {@link InterruptedException} when its thread is interrupted.
 */
public interface Wakeups {

  /**
   * A count that moves (only grows) whenever jobs of the tag are heard to become queued.
   *
   * @param tag the collector tag
   * @return the current count
   */
  long generation(String tag);

  /**
   * Waits until the tag's generation moves past {@code seen}, or {@code maxWait} passes.
   *
   * @param tag the collector tag
   * @param seen the generation read before the claim that came back empty
   * @param maxWait the longest wait: the claim interval
   * @return true when woken, false when the wait timed out; either way the collector claims next
   * @throws InterruptedException when the waiting thread is interrupted
   */
  boolean awaitQueued(String tag, long seen, Duration maxWait) throws InterruptedException;

  /**
   * The wait of {@link #awaitQueued}, as a functional interface for {@link #of}.
   */
  @FunctionalInterface
  interface Await {
    /**
     * Waits as {@link Wakeups#awaitQueued} does.
     *
     * @param tag the collector tag
     * @param seen the generation read before the claim
     * @param maxWait the longest wait
     * @return true when woken
     * @throws InterruptedException when the waiting thread is interrupted
     */
    boolean awaitQueued(String tag, long seen, Duration maxWait) throws InterruptedException;
  }

  /**
   * Pure polling with the system sleeper: every wait lasts its whole {@code maxWait}. The default.
   *
   * @return the polling wake-ups
   */
  static Wakeups polling() {
    return polling(Sleeper.system());
  }

  /**
   * Pure polling: the generation never moves and every wait sleeps its whole {@code maxWait}.
   *
   * @param sleeper how to sleep
   * @return the polling wake-ups
   * @throws InvalidQueueInputException when the sleeper is missing
   */
  static Wakeups polling(Sleeper sleeper) {
    Sleeper s = Settings.present(sleeper, "polling sleeper");
    return of(tag -> 0L, (tag, seen, maxWait) -> {
      s.sleep(maxWait);
      return false;
    });
  }

  /**
   * Wake-ups made of a generation reader and a wait, such as the two methods of ci-postgres's
   * {@code PostgresQueueWakeups}: {@code Wakeups.of(listener::generation, listener::awaitQueued)}.
   *
   * @param generation reads a tag's generation
   * @param await waits for it to move
   * @return the wake-ups
   * @throws InvalidQueueInputException when an argument is missing
   */
  static Wakeups of(ToLongFunction<String> generation, Await await) {
    ToLongFunction<String> g = Settings.present(generation, "wake-up generation reader");
    Await a = Settings.present(await, "wake-up wait");
    return new Wakeups() {
      @Override
      public long generation(String tag) {
        return g.applyAsLong(tag);
      }

      @Override
      public boolean awaitQueued(String tag, long seen, Duration maxWait) throws InterruptedException {
        return a.awaitQueued(tag, seen, maxWait);
      }
    };
  }
}

package dev.cipolicy.cli;

import dev.cipolicy.queue.spi.QueueStoreUnavailableException;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * How long {@code fleet submit} keeps trying a store that does not answer: each call is retried after 1, 2, 4 and
 * then every 8 seconds until the store has been unreachable for the budget without a single answer in between;
 * then the last {@link QueueStoreUnavailableException} is thrown. Only calls that are safe to repeat go through
 * it (reads, and a submit, which the run's key makes idempotent: the same run again attaches).
 */
final class StoreBudget {
  /** The default budget, in seconds. */
  static final long DEFAULT_SECONDS = 300;

  private static final long MAX_PAUSE_MILLIS = 8000;

  /** Waits between tries; a test passes one that does not sleep. */
  interface Sleeper {
    /** Waits the given milliseconds. */
    void sleep(long millis) throws InterruptedException;
  }

  private final Duration budget;
  private final Sleeper sleeper;
  private final Supplier<Long> nanoTime;
  private long unreachableSince = -1;

  StoreBudget(Duration budget, Sleeper sleeper, Supplier<Long> nanoTime) {
    this.budget = budget;
    this.sleeper = sleeper;
    this.nanoTime = nanoTime;
  }

  /** A budget that really sleeps, on the JVM's monotonic clock. */
  static StoreBudget of(Duration budget) {
    return new StoreBudget(budget, Thread::sleep, System::nanoTime);
  }

  /**
   * Runs the call, retrying it while the store is unreachable and the budget lasts.
   *
   * @throws QueueStoreUnavailableException when the store stayed unreachable for the whole budget
   * @throws InterruptedException when interrupted while waiting to retry
   */
  <T> T call(Supplier<T> call) throws InterruptedException {
    long pause = 1000;
    while (true) {
      try {
        T result = call.get();
        unreachableSince = -1;
        return result;
      } catch (QueueStoreUnavailableException e) {
        long now = nanoTime.get();
        if (unreachableSince < 0) {
          unreachableSince = now;
        }
        long left = budget.toNanos() - (now - unreachableSince);
        if (left <= 0) {
          throw e;
        }
        sleeper.sleep(Math.min(pause, Math.max(1, left / 1_000_000)));
        pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
      }
    }
  }
}

package dev.cipolicy.queue.worker;

import java.time.Duration;

/**
 * The collector's way of pausing between heartbeats, and the polling wake-ups' way of waiting between claims.
 * The default sleeps the calling thread; a test may pass one that also advances a settable clock. A pause
 * must end early with {@link InterruptedException} when its thread is interrupted: that is how
 * {@link CollectorRuntime#close()} stops the collector's threads.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Pauses the calling thread.
   *
   * @param duration how long; zero or negative returns at once
   * @throws InterruptedException when the thread is interrupted
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * The sleeper of the real world: {@link Thread#sleep(long, int)} on the calling thread.
   *
   * @return the system sleeper
   */
  static Sleeper system() {
    return duration -> {
      if (duration.isNegative() || duration.isZero()) {
        return;
      }
      long nanos = duration.toNanos();
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    };
  }
}

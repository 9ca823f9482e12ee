package dev.cipolicy.examples.fleet;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Fleets for the tests: fast time, short leases, any free port. */
final class TestFleets {
  static final String TOKEN = "test-token-0123456789";

  private TestFleets() {}

  /** A fleet whose 30-minute suite runs about 0.4 s, leases of 3 s, controls on with {@link #TOKEN}. */
  static Fleet.Options fast(boolean controls) {
    return new Fleet.Options("127.0.0.1", 0, 0.0002, Duration.ofSeconds(3), Duration.ofSeconds(5), 0.15, 7,
        controls ? TOKEN : null, true);
  }

  /** Waits until the condition holds, failing after the timeout. */
  static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
      }
      Thread.sleep(100);
    }
  }
}

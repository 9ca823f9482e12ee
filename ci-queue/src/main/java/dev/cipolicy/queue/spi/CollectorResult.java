package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Collector;
import java.util.Optional;

/**
 * What a collector update (heartbeat, activation) did.
 *
 * @param status what happened
 * @param collector the collector after the operation, absent when not found
 */
public record CollectorResult(Status status, Optional<Collector> collector) {

  /** What a collector update did. */
  public enum Status {
    /** The update was applied. */
    OK,
    /** The collector already was in the requested state; nothing changed. */
    UNCHANGED,
    /** No collector has this name. */
    NOT_FOUND,
    /** The collector is retiring: it stays inactive until it is registered again; nothing changed. */
    RETIRING
  }

  /** Checks the components. */
  public CollectorResult {
    Checks.present(status, "collector status");
    Checks.present(collector, "collector");
  }
}

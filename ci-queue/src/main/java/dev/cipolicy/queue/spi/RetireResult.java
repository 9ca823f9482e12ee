package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Collector;
import java.util.Optional;

/**
 * What retiring a collector did (the rule is {@link CollectorRegistration}).
 *
 * @param status what happened
 * @param collector the collector while it is retiring; empty when it is gone or was not found
 */
public record RetireResult(Status status, Optional<Collector> collector) {

  /** What retiring did. */
  public enum Status {
    /** The collector held no live lease and is gone: it claims nothing, no view lists it, its name is free. */
    RETIRED,
    /**
     * The collector holds live leases: it claims nothing more, is listed (retiring) until they end by
     * completion, failure, release, cancellation or expiry, and is gone after.
     */
    RETIRING,
    /** No collector has this name (or it was retired before). */
    NOT_FOUND
  }

  /** Checks the components. */
  public RetireResult {
    Checks.present(status, "retire status");
    Checks.present(collector, "retired collector");
    if ((status == Status.RETIRING) != collector.isPresent()) {
      throw new dev.cipolicy.queue.model.InvalidQueueInputException("a retire result " + status + " has " + (collector.isPresent() ? "a"
          : "no") + " collector; expected one exactly when retiring");
    }
  }
}

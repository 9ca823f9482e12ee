package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Collector;

/**
 * What registering a collector did: registered it, or nothing because the name is taken (with the same
 * tag: a no-op; with another tag: refused).
 *
 * @param status what happened
 * @param collector the registered collector, or the existing one with that name
 */
public record RegisterResult(Status status, Collector collector) {

  /** What registering did. */
  public enum Status {
    /** The collector was registered. */
    REGISTERED,
    /** A collector with this name and tag exists; nothing changed. */
    ALREADY_REGISTERED,
    /** A collector with this name but another tag exists; nothing changed. */
    NAME_TAKEN
  }

  /** Checks the components. */
  public RegisterResult {
    Checks.present(status, "register status");
    Checks.present(collector, "registered collector");
  }
}

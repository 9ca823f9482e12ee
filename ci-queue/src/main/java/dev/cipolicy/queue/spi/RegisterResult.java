package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Collector;

/**
 * What registering a collector did (the rule is {@link CollectorRegistration}).
 *
 * @param status what happened
 * @param collector the collector as it stands after the call: registered, updated, or the existing one
 */
public record RegisterResult(Status status, Collector collector) {

  /** What registering did. */
  public enum Status {
    /** The collector was registered (a new name, or the name of a retired collector: a fresh registration). */
    REGISTERED,
    /** A collector with this name, tag and inventory exists and none is pending; nothing changed. */
    ALREADY_REGISTERED,
    /**
     * A collector with this name and tag exists with another inventory, and the store took the given one at
     * once: no live lease holds a device it removes. A pending inventory was dropped.
     */
    INVENTORY_UPDATED,
    /**
     * A collector with this name and tag exists with another inventory, but a live lease holds a device the
     * given one removes: the given inventory is pending (replacing any pending before), no new lease is placed on
     * a removed device, an added device is not used, and the store takes it at a later claim of the collector.
     */
    INVENTORY_PENDING,
    /** A collector with this name but another tag exists; nothing changed. */
    NAME_TAKEN,
    /** A collector with this name is retiring and still holds a live lease; nothing changed. */
    RETIRING
  }

  /** Checks the components. */
  public RegisterResult {
    Checks.present(status, "register status");
    Checks.present(collector, "registered collector");
  }
}

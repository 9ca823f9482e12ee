package dev.cipolicy.cli;

import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.spi.RegisterResult;
import java.util.Optional;

/**
 * The line {@code fleet collector} prints when registering the host changed its inventory in the store, or left
 * the new inventory pending (not an error: the store takes it once the jobs holding removed devices end).
 */
final class FleetCollectorLines {

  private FleetCollectorLines() {}

  /**
   * The line for a registration, if it updated the inventory or left it pending.
   *
   * @param result what registering the host did
   * @return the line, or empty for a registration that changed no inventory
   */
  static Optional<String> registration(RegisterResult result) {
    Collector c = result.collector();
    return switch (result.status()) {
      case INVENTORY_UPDATED -> Optional.of("collector " + c.name() + ": inventory updated in the store to devices "
          + describe(c.devices()));
      case INVENTORY_PENDING -> {
        Devices next = c.pendingDevices().orElseThrow();
        yield Optional.of("collector " + c.name() + ": inventory pending: devices " + describe(next) + " replace "
            + c.devices().indices() + " once no running job holds " + c.devices().removedBy(next)
            + "; until then jobs are placed on " + c.usableDevices().indices());
      }
      default -> Optional.empty();
    };
  }

  private static String describe(Devices devices) {
    return devices.indices() + (devices.groups().isEmpty() ? "" : " in groups " + devices.groups());
  }
}

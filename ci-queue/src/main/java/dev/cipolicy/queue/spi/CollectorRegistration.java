package dev.cipolicy.queue.spi;

import dev.cipolicy.queue.model.Checks;
import dev.cipolicy.queue.model.Collector;
import dev.cipolicy.queue.model.Devices;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The rules of a collector's inventory and retirement, written once: every store reads the facts they need (the
 * collector's row, the devices its live leases hold, whether it holds any live lease) inside its own step and
 * writes what these functions return.
 *
 * <p><b>Registering again.</b> A name not registered, or the name of a collector that retired and holds no live
 * lease, is registered fresh. A retiring collector that still holds a live lease is {@code RETIRING} and does not
 * change. Another tag is {@code NAME_TAKEN} (a host moves to another pool by being retired first). The same
 * inventory with none pending is {@code ALREADY_REGISTERED}. Otherwise the given inventory replaces the taken one
 * at once ({@code INVENTORY_UPDATED}, dropping any pending one) when no live lease holds a device it removes, and
 * is pending otherwise ({@code INVENTORY_PENDING}, replacing any pending one). Groups are part of the inventory:
 * regrouping the same devices removes none and is taken at once. Registering again changes neither the active
 * flag nor the heartbeat.
 *
 * <p><b>While an inventory is pending</b> a claim places jobs only on the devices of both inventories
 * ({@link Collector#usableDevices()}): none on a device the pending one removes, none on one it adds.
 *
 * <p><b>When a pending inventory is taken:</b> at the start of each claim of the collector (after the claim
 * processed its pool's expired leases), when no live lease holds a device it removes; so the claim that follows
 * the end of the last such lease (complete, fail, release, cancellation or expiry) places on the new inventory. A
 * lease is live while its expiry is after the store's now.
 *
 * <p><b>Retiring.</b> A retired collector is inactive and claims nothing more; it is listed (as retiring) while it
 * holds a live lease, of any job, and is gone after: no view lists it, a claim or heartbeat does not find it, and
 * registering its name again is a fresh registration. Its live leases run to their end or expire as any lease.
 */
public final class CollectorRegistration {

  private CollectorRegistration() {}

  /**
   * What registering a collector does.
   *
   * @param status the result's status
   * @param next the collector to store, or empty when nothing changes
   * @param fresh whether {@code next} is a fresh registration (a new row, or the row of a retired collector
   *     replaced)
   */
  public record Decision(RegisterResult.Status status, Optional<Collector> next, boolean fresh) {

    /** Checks the components. */
    public Decision {
      Checks.present(status, "register status");
      Checks.present(next, "next collector");
    }
  }

  /**
   * Decides a registration.
   *
   * @param existing the collector of that name as stored (retiring or not, gone or not), or null
   * @param name the name
   * @param tag the tag given
   * @param active the active flag given (used by a fresh registration only)
   * @param devices the inventory given
   * @param now the store's now
   * @param holdsLiveLease whether {@code existing} is the holder of some live lease
   * @param liveHeld the devices of {@code existing} that live leases hold
   * @return what to do
   */
  public static Decision register(@Nullable Collector existing, String name, String tag, boolean active,
      Devices devices, Instant now, boolean holdsLiveLease, Collection<Integer> liveHeld) {
    Checks.present(devices, "collector devices");
    if (existing == null || (existing.retiring() && !holdsLiveLease)) {
      return new Decision(RegisterResult.Status.REGISTERED,
          Optional.of(Collector.builder().name(name).tag(tag).active(active).registeredAt(now).lastHeartbeatAt(now)
              .devices(devices).build()), true);
    }
    if (existing.retiring()) {
      return new Decision(RegisterResult.Status.RETIRING, Optional.empty(), false);
    }
    if (!existing.tag().equals(tag)) {
      return new Decision(RegisterResult.Status.NAME_TAKEN, Optional.empty(), false);
    }
    if (existing.devices().equals(devices) && existing.pendingDevices().isEmpty()) {
      return new Decision(RegisterResult.Status.ALREADY_REGISTERED, Optional.empty(), false);
    }
    if (blocked(existing.devices(), devices, liveHeld)) {
      if (existing.pendingDevices().equals(Optional.of(devices))) {
        return new Decision(RegisterResult.Status.INVENTORY_PENDING, Optional.empty(), false);
      }
      return new Decision(RegisterResult.Status.INVENTORY_PENDING,
          Optional.of(existing.withInventory(existing.devices(), Optional.of(devices))), false);
    }
    return new Decision(RegisterResult.Status.INVENTORY_UPDATED,
        Optional.of(existing.withInventory(devices, Optional.empty())), false);
  }

  /**
   * The collector with its pending inventory taken, when a claim of it may take it now.
   *
   * @param collector the claiming collector
   * @param liveHeld the devices of the collector that live leases hold, after the claim processed its pool's
   *     expired leases
   * @return the collector to store, or empty when nothing is pending or the pending inventory is still blocked
   */
  public static Optional<Collector> takeAtClaim(Collector collector, Collection<Integer> liveHeld) {
    Checks.present(collector, "collector");
    if (collector.pendingDevices().isEmpty()
        || blocked(collector.devices(), collector.pendingDevices().get(), liveHeld)) {
      return Optional.empty();
    }
    return Optional.of(collector.withInventory(collector.pendingDevices().get(), Optional.empty()));
  }

  /**
   * What retiring a collector does.
   *
   * @param existing the collector of that name as stored, or null
   * @param holdsLiveLease whether it is the holder of some live lease
   * @return the result; the collector to store is the retiring one when {@code RETIRING}, and the store marks the
   *     row retiring (inactive) for {@code RETIRED} too
   */
  public static RetireResult retire(@Nullable Collector existing, boolean holdsLiveLease) {
    if (existing == null || !listed(existing, holdsLiveLease)) {
      return new RetireResult(RetireResult.Status.NOT_FOUND, Optional.empty());
    }
    if (!holdsLiveLease) {
      return new RetireResult(RetireResult.Status.RETIRED, Optional.empty());
    }
    return new RetireResult(RetireResult.Status.RETIRING, Optional.of(existing.asRetiring()));
  }

  /**
   * Whether a stored collector is still listed (found by reads, claims and heartbeats): not retiring, or retiring
   * while it holds a live lease.
   *
   * @param stored the collector as stored
   * @param holdsLiveLease whether it is the holder of some live lease
   * @return true when listed
   */
  public static boolean listed(Collector stored, boolean holdsLiveLease) {
    return !stored.retiring() || holdsLiveLease;
  }

  /** Whether a live lease holds a device that {@code next} removes from {@code taken}. */
  private static boolean blocked(Devices taken, Devices next, Collection<Integer> liveHeld) {
    for (Integer d : taken.removedBy(next)) {
      if (liveHeld.contains(d)) {
        return true;
      }
    }
    return false;
  }
}

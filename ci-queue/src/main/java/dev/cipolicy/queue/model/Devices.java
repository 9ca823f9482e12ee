package dev.cipolicy.queue.model;

import dev.cipolicy.queue.model.Checks;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The GPU devices a collector (a host) advertises when it registers: their indices and, optionally, how they
 * are grouped (NVLink islands, PCIe switches), each device in exactly one group. A host without groups is one
 * group of all its devices. A collector without devices runs only jobs that need none.
 *
 * @param indices the device indices, ascending, distinct, from 0 to {@link #MAX_INDEX}
 * @param groups the groups, each ascending and non-empty, ordered by their first index, together exactly
 *     the indices; empty when the host declares none
 */
public record Devices(List<Integer> indices, List<List<Integer>> groups) {

  /** The largest device index a host may advertise. */
  public static final int MAX_INDEX = 255;

  private static final Devices NONE = new Devices(List.of(), List.of());

  /** Checks and copies the components. */
  public Devices {
    Checks.present(indices, "device indices");
    Checks.present(groups, "device groups");
    TreeSet<Integer> seen = new TreeSet<>();
    for (Integer index : indices) {
      Checks.present(index, "device index");
      if (index < 0 || index > MAX_INDEX) {
        throw new InvalidQueueInputException("device index " + index + " is out of range; expected 0 to "
            + MAX_INDEX);
      }
      if (!seen.add(index)) {
        throw new InvalidQueueInputException("device index " + index + " is listed twice; expected each once");
      }
    }
    indices = List.copyOf(seen);
    List<List<Integer>> copied = new ArrayList<>(groups.size());
    TreeSet<Integer> grouped = new TreeSet<>();
    for (List<Integer> group : groups) {
      Checks.present(group, "device group");
      if (group.isEmpty()) {
        throw new InvalidQueueInputException("a device group is empty; expected at least one device index");
      }
      TreeSet<Integer> members = new TreeSet<>();
      for (Integer index : group) {
        Checks.present(index, "device index of a group");
        if (!seen.contains(index)) {
          throw new InvalidQueueInputException("device group " + group + " names device " + index
              + ", which the host does not advertise; expected one of " + indices);
        }
        if (!grouped.add(index) || !members.add(index)) {
          throw new InvalidQueueInputException("device " + index + " is in two device groups; expected each"
              + " device in exactly one group");
        }
      }
      copied.add(List.copyOf(members));
    }
    if (!copied.isEmpty() && grouped.size() != seen.size()) {
      TreeSet<Integer> missing = new TreeSet<>(seen);
      missing.removeAll(grouped);
      throw new InvalidQueueInputException("devices " + missing + " are in no device group; expected the groups"
          + " to cover every device");
    }
    copied.sort((a, b) -> Integer.compare(a.get(0), b.get(0)));
    groups = List.copyOf(copied);
  }

  /**
   * No devices: a CPU-only collector.
   *
   * @return the empty inventory
   */
  public static Devices none() {
    return NONE;
  }

  /**
   * Devices {@code 0} to {@code count - 1}, ungrouped.
   *
   * @param count how many devices, 0 to {@code MAX_INDEX + 1}
   * @return the inventory
   */
  public static Devices count(int count) {
    Checks.atLeast(count, 0, "device count");
    List<Integer> indices = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      indices.add(i);
    }
    return new Devices(indices, List.of());
  }

  /**
   * The devices of the given groups, in the order of their indices.
   *
   * @param groups the groups, each device in exactly one
   * @return the inventory
   */
  public static Devices grouped(List<List<Integer>> groups) {
    Checks.present(groups, "device groups");
    List<Integer> indices = new ArrayList<>();
    for (List<Integer> group : groups) {
      indices.addAll(Checks.present(group, "device group"));
    }
    return new Devices(indices, groups);
  }

  /**
   * How many devices the host has.
   *
   * @return the number of indices
   */
  public int size() {
    return indices.size();
  }

  /**
   * Whether the host has no devices.
   *
   * @return true for a CPU-only collector
   */
  public boolean isEmpty() {
    return indices.isEmpty();
  }

  /**
   * The devices of this inventory that {@code other} also has, grouped as in this one (a group left with no
   * device is dropped).
   *
   * @param other another inventory
   * @return the common devices
   */
  public Devices keepOnly(Devices other) {
    Checks.present(other, "devices");
    List<Integer> kept = new ArrayList<>();
    for (Integer d : indices) {
      if (other.indices.contains(d)) {
        kept.add(d);
      }
    }
    List<List<Integer>> keptGroups = new ArrayList<>();
    for (List<Integer> g : groups) {
      List<Integer> k = new ArrayList<>();
      for (Integer d : g) {
        if (other.indices.contains(d)) {
          k.add(d);
        }
      }
      if (!k.isEmpty()) {
        keptGroups.add(k);
      }
    }
    return new Devices(kept, keptGroups);
  }

  /**
   * The devices of this inventory that {@code next} does not have: what registering {@code next} instead would
   * remove.
   *
   * @param next the inventory that would replace this one
   * @return the removed indices, ascending
   */
  public List<Integer> removedBy(Devices next) {
    Checks.present(next, "devices");
    List<Integer> out = new ArrayList<>();
    for (Integer d : indices) {
      if (!next.indices.contains(d)) {
        out.add(d);
      }
    }
    return List.copyOf(out);
  }

  /**
   * The groups a placement works with: the declared groups, or one group of every device when none were
   * declared.
   *
   * @return the effective groups, ordered by their first index
   */
  public List<List<Integer>> effectiveGroups() {
    return groups.isEmpty() && !indices.isEmpty() ? List.of(indices) : groups;
  }
}

package dev.cipolicy.examples.fleet;

import java.util.List;

/**
 * A simulated host of the fleet: one collector of a pool with its GPU devices (none for a CPU runner, which
 * runs up to {@code slots} jobs at once).
 *
 * @param name the collector name, e.g. {@code h200-0}
 * @param pool the pool (collector tag), e.g. {@code h200}
 * @param gpus how many GPU devices it advertises; 0 for a CPU runner
 * @param slots how many jobs a CPU runner runs at once (ignored for a GPU host, whose devices limit it)
 */
public record Host(String name, String pool, int gpus, int slots) {

  /**
   * The reference fleet: the H200 host as one 8-GPU pool, the whole B200 host, two H100 hosts, the MI350 host
   * and two CPU runners.
   *
   * @return the hosts
   */
  public static List<Host> reference() {
    return List.of(
        new Host("h200-0", "h200", 8, 0),
        new Host("b200-0", "b200", 8, 0),
        new Host("h100-0", "h100", 8, 0),
        new Host("h100-1", "h100", 8, 0),
        new Host("mi350-0", "mi350", 8, 0),
        new Host("cpu-0", "cpu", 0, 2),
        new Host("cpu-1", "cpu", 0, 2));
  }

  /**
   * How many jobs it runs at once at most.
   *
   * @return the devices of a GPU host, else the slots
   */
  public int capacity() {
    return gpus > 0 ? gpus : Math.max(1, slots);
  }
}

package dev.cipolicy.fleet.host;

import dev.cipolicy.queue.model.Devices;
import dev.cipolicy.queue.model.InvalidQueueInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The devices of a GPU host, as its vendor tool lists them or as an operator writes them.
 *
 * <p>Detected: {@link #NVIDIA_QUERY} prints one line per GPU whose first field is its index
 * ({@code 0}, or {@code 0, GPU-5d1c..., NVIDIA H200}); {@link #ROCM_QUERY} prints a CSV table with a header line
 * whose first column is {@code device} and one row per GPU ({@code 0,0x75a0} or {@code card0,0x75a0}). Blank lines
 * are skipped; any other line is an error naming its line number.
 *
 * <p>Written: a device list is comma-separated indices and inclusive ranges ({@code 0-7}, {@code 0,1,4-5});
 * groups are device lists separated by {@code ;} ({@code 0-3;4-7} is two NVLink islands of four).
 * At most {@value #MAX_TEXT} characters are read of any input.
 */
public final class HostDevices {

  /** The command that lists NVIDIA GPUs, one index per line. */
  public static final List<String> NVIDIA_QUERY = List.of("nvidia-smi", "--query-gpu=index", "--format=csv,noheader");

  /** The command that lists AMD GPUs as a CSV table. */
  public static final List<String> ROCM_QUERY = List.of("rocm-smi", "--showid", "--csv");

  /** The most characters read of a tool's output or of a written list. */
  public static final int MAX_TEXT = 64 * 1024;

  private HostDevices() {}

  /**
   * The devices {@code nvidia-smi --query-gpu=index --format=csv,noheader} listed.
   *
   * @param output the tool's standard output
   * @return the devices, one group
   * @throws InvalidHostException when a line does not start with an index, or no GPU is listed
   */
  public static Devices fromNvidiaSmi(String output) {
    return detected("nvidia-smi", output, false);
  }

  /**
   * The devices {@code rocm-smi --showid --csv} listed.
   *
   * @param output the tool's standard output
   * @return the devices, one group
   * @throws InvalidHostException when the header or a row does not parse, or no GPU is listed
   */
  public static Devices fromRocmSmi(String output) {
    return detected("rocm-smi", output, true);
  }

  /**
   * The devices an operator wrote: one list ({@code 0-7}) or groups separated by {@code ;} ({@code 0-3;4-7}).
   *
   * @param text the written devices
   * @return the devices, with groups when more than one was written
   * @throws InvalidHostException naming the item that does not parse, a device written twice, an index out of
   *     range
   */
  public static Devices parse(String text) {
    List<List<Integer>> groups = groups(text, "devices");
    if (groups.size() == 1) {
      return build(groups.get(0), List.of(), "devices '" + shown(text) + "'");
    }
    List<Integer> all = new ArrayList<>();
    groups.forEach(all::addAll);
    return build(all, groups, "devices '" + shown(text) + "'");
  }

  /**
   * Detected devices with groups an operator wrote: the groups must hold exactly the detected indices.
   *
   * @param detected the devices a tool listed
   * @param groupsText groups separated by {@code ;}, e.g. {@code 0-3;4-7}
   * @return the devices with those groups
   * @throws InvalidHostException when the groups do not parse or do not hold exactly the detected devices
   */
  public static Devices withGroups(Devices detected, String groupsText) {
    List<List<Integer>> groups = groups(groupsText, "groups");
    TreeSet<Integer> written = new TreeSet<>();
    groups.forEach(written::addAll);
    if (!written.equals(new TreeSet<>(detected.indices()))) {
      throw new InvalidHostException("groups '" + shown(groupsText) + "' hold devices " + written
          + " but the host has " + detected.indices() + "; expected groups that hold each device exactly once");
    }
    return build(detected.indices(), groups, "groups '" + shown(groupsText) + "'");
  }

  private static Devices detected(String tool, String output, boolean csvHeader) {
    String text = bounded(output, tool + " output");
    List<Integer> indices = new ArrayList<>();
    boolean headerSeen = !csvHeader;
    String[] lines = text.split("\r?\n", -1);
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n].strip();
      if (line.isEmpty()) {
        continue;
      }
      String first = line.split(",", 2)[0].strip();
      if (!headerSeen) {
        if (!first.toLowerCase(Locale.ROOT).equals("device")) {
          throw new InvalidHostException(tool + " output line " + (n + 1) + " is '" + shown(line)
              + "'; expected the CSV header starting with 'device'");
        }
        headerSeen = true;
        continue;
      }
      if (csvHeader && first.startsWith("card")) {
        first = first.substring("card".length());
      }
      indices.add(index(first, tool + " output line " + (n + 1)));
    }
    if (indices.isEmpty()) {
      throw new InvalidHostException(tool + " listed no GPU; expected one line per GPU starting with its index");
    }
    return build(indices, List.of(), tool + " output");
  }

  private static List<List<Integer>> groups(String text, String what) {
    String bounded = bounded(text, what).strip();
    if (bounded.isEmpty()) {
      throw new InvalidHostException(what + " are empty; expected indices and ranges such as 0-3;4-7");
    }
    List<List<Integer>> groups = new ArrayList<>();
    for (String group : bounded.split(";", -1)) {
      List<Integer> indices = new ArrayList<>();
      for (String item : group.split(",", -1)) {
        String it = item.strip();
        String where = what + " '" + shown(bounded) + "', item '" + shown(it) + "'";
        int dash = it.indexOf('-');
        if (dash > 0) {
          int from = index(it.substring(0, dash).strip(), where);
          int to = index(it.substring(dash + 1).strip(), where);
          if (to < from) {
            throw new InvalidHostException(where + " is a descending range; expected from-to with from <= to");
          }
          for (int i = from; i <= to; i++) {
            indices.add(i);
          }
        } else {
          indices.add(index(it, where));
        }
      }
      groups.add(indices);
    }
    return groups;
  }

  private static int index(String s, String where) {
    if (s.isEmpty() || s.length() > 3 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new InvalidHostException(where + ": '" + shown(s) + "' is not a device index; expected 0 to "
          + Devices.MAX_INDEX);
    }
    int i = Integer.parseInt(s);
    if (i > Devices.MAX_INDEX) {
      throw new InvalidHostException(where + ": device index " + i + " is out of range; expected 0 to "
          + Devices.MAX_INDEX);
    }
    return i;
  }

  private static Devices build(List<Integer> indices, List<List<Integer>> groups, String what) {
    TreeSet<Integer> distinct = new TreeSet<>(indices);
    if (distinct.size() != indices.size()) {
      List<Integer> seen = new ArrayList<>();
      for (int i : indices) {
        if (seen.contains(i)) {
          throw new InvalidHostException(what + " list device " + i + " twice; expected each device once");
        }
        seen.add(i);
      }
    }
    List<List<Integer>> sorted = new ArrayList<>();
    for (List<Integer> g : groups) {
      sorted.add(List.copyOf(new TreeSet<>(g)));
    }
    sorted.sort((a, b) -> Integer.compare(a.get(0), b.get(0)));
    try {
      return new Devices(List.copyOf(distinct), List.copyOf(sorted));
    } catch (InvalidQueueInputException e) {
      throw new InvalidHostException(what + ": " + e.getMessage());
    }
  }

  private static String bounded(String text, String what) {
    if (text.length() > MAX_TEXT) {
      throw new InvalidHostException(what + " has " + text.length() + " characters; expected at most " + MAX_TEXT);
    }
    return text;
  }

  /** At most 60 characters of an input, with control characters shown as {@code ?}, for a one-line message. */
  private static String shown(String s) {
    String cut = s.length() > 60 ? s.substring(0, 60) + "..." : s;
    StringBuilder sb = new StringBuilder(cut.length());
    cut.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return sb.toString();
  }
}

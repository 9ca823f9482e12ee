package dev.cipolicy.benchmarks.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's 1-minute load average ({@code /proc/loadavg}), or -1 where there is none. */
final class Load {
  private Load() {
  }

  static double now() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}

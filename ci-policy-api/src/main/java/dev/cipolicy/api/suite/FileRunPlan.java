package dev.cipolicy.api.suite;

import java.util.List;

/**
 * How one test file is rerun on demand.
 *
 * @param file the test file
 * @param hw the backend, {@code cpu} or {@code cuda}
 * @param suite the suite the file is registered in
 * @param runsOn runner labels (empty for CPU: the CPU workflow's hosted runner)
 * @param containerImage {@code <repository>:<tag>}
 * @param timeoutSeconds {@code max(base, floor(est_time × factor))}
 * @param concurrencyGroup the group key; reruns of the same (PR, file) queue, never cancel each other
 */
public record FileRunPlan(String file, String hw, String suite, List<String> runsOn, String containerImage,
    long timeoutSeconds, String concurrencyGroup) {
  /** Copies the runner labels. */
  public FileRunPlan {
    runsOn = List.copyOf(runsOn);
  }
}

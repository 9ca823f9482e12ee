package dev.cipolicy.gate;

import dev.cipolicy.api.InvalidInputException;

/**
 * The identity of a history series: one test file run on one backend in one suite. Baselines
 * of the same metric from different series never mix.
 *
 * @param testPath the test file, e.g. {@code tests/e2e/test_fsdp_short.py}
 * @param backend the hardware backend, e.g. {@code cuda}
 * @param suite the suite (stage), e.g. {@code stage-c-4-gpu-h200}
 */
public record SeriesKey(String testPath, String backend, String suite) {
  /** Validates the components. */
  public SeriesKey {
    if (testPath == null || testPath.isEmpty() || backend == null || suite == null) {
      throw new InvalidInputException("a series needs a non-empty test path, a backend and a suite");
    }
  }

  @Override
  public String toString() {
    return testPath + " (" + backend + "/" + suite + ")";
  }
}

package dev.cipolicy.launch;

import java.util.Optional;
import java.util.SortedMap;

/**
 * The environment variables a launcher reads. Production code passes the process environment; tests pass a
 * {@code FrozenEnvironment} (ci-testkit), so host variables such as
 * {@code CUDA_VISIBLE_DEVICES} never leak into a recording.
 */
public interface Environment {
  /**
   * One variable.
   *
   * @param name the variable name
   * @return its value, absent when unset
   */
  Optional<String> get(String name);

  /**
   * One variable, or a fallback when it is unset.
   *
   * @param name the variable name
   * @param fallback the value for an unset variable
   * @return the value or {@code fallback}
   */
  default String getOrDefault(String name, String fallback) {
    return get(name).orElse(fallback);
  }

  /**
   * Every variable.
   *
   * @return name → value, sorted by name
   */
  SortedMap<String, String> variables();
}

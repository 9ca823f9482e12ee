package dev.cipolicy.launch.system;

import dev.cipolicy.launch.Environment;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/** An {@link Environment} over a fixed copy of variables, by default those of this process. */
final class SystemEnvironment implements Environment {
  private final SortedMap<String, String> variables;

  private SystemEnvironment(Map<String, String> variables) {
    this.variables = Collections.unmodifiableSortedMap(new TreeMap<>(variables));
  }

  /**
   * The environment of this process, copied now.
   *
   * @return the environment
   */
  static SystemEnvironment current() {
    return new SystemEnvironment(System.getenv());
  }

  /**
   * An environment of given variables.
   *
   * @param variables name → value
   * @return the environment
   */
  static SystemEnvironment of(Map<String, String> variables) {
    return new SystemEnvironment(variables);
  }

  @Override
  public Optional<String> get(String name) {
    return Optional.ofNullable(variables.get(name));
  }

  @Override
  public SortedMap<String, String> variables() {
    return variables;
  }
}

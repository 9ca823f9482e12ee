package dev.cipolicy.api.pattern;

import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A successful whole match of a {@link NamePattern} against a name: the text each named group captured.
 *
 * <pre>{@code
 * NamePattern.compile("stage-(?<gpus>[0-9]+)-gpu").matchWhole("stage-4-gpu").orElseThrow().group("gpus")
 *     // Optional[4]
 * }</pre>
 */
public final class NameMatch {
  private final String name;
  private final Map<String, String> groups;

  NameMatch(String name, Map<String, String> groups) {
    this.name = name;
    this.groups = Map.copyOf(groups);
  }

  /**
   * The name that matched.
   *
   * @return the whole name
   */
  public String name() {
    return name;
  }

  /**
   * The text a named group captured.
   *
   * @param group the group's name
   * @return the captured text, or empty when the pattern has no such group or the group took no part in the match
   */
  public Optional<String> group(String group) {
    return Optional.ofNullable(groups.get(group));
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof NameMatch m && m.name.equals(name) && m.groups.equals(groups);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + groups.hashCode();
  }

  @Override
  public String toString() {
    return "NameMatch{" + name + ", " + groups + "}";
  }
}

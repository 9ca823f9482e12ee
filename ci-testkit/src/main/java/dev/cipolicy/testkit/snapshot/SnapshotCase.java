package dev.cipolicy.testkit.snapshot;

import java.util.Optional;

/**
 * One snapshot: an entrypoint, with its variant when it takes one.
 *
 * @param entrypoint the entrypoint
 * @param variant the variant passed to it, absent for a parameterless entrypoint
 */
public record SnapshotCase(EntrypointMethod entrypoint, Optional<String> variant) {
  /**
   * The case's name, which allowances and overrides use.
   *
   * @return {@code entrypoint} or {@code entrypoint[variant]}
   */
  public String id() {
    return variant.map(v -> entrypoint.name() + "[" + v + "]").orElse(entrypoint.name());
  }

  /**
   * The golden file of the case, relative to the golden directory.
   *
   * @return {@code entrypoint.txt} or {@code entrypoint/variant.txt}
   */
  public String goldenPath() {
    return variant.map(v -> entrypoint.name() + "/" + v + ".txt").orElse(entrypoint.name() + ".txt");
  }

  @Override
  public String toString() {
    return id();
  }
}

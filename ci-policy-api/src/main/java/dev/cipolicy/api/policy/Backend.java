package dev.cipolicy.api.policy;

import dev.cipolicy.api.internal.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * A hardware backend ({@code cpu}, {@code cuda}, {@code rocm}) and its suites in order.
 */
@Value.Immutable
@ValueStyle
public abstract class Backend {
  /**
   * The backend name.
   *
   * @return e.g. {@code cuda}
   */
  public abstract String name();

  /**
   * Whether tests of this backend need GPUs (and therefore at least one label).
   *
   * @return the flag
   */
  @Value.Default
  public boolean gpu() {
    return false;
  }

  /**
   * The suites of this backend, in order.
   *
   * @return the suites
   */
  public abstract List<Suite> suites();

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableBackend.Builder builder() {
    return ImmutableBackend.builder();
  }
}

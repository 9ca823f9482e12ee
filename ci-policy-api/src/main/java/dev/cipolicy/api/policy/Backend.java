package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
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
   * Rejects an empty name.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("Backend").nonEmpty("name", name()).done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Backend}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableBackend.Builder {
    Builder() {}
  }
}

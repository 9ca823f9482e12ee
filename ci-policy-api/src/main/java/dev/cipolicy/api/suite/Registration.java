package dev.cipolicy.api.suite;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Optional;
import org.immutables.value.Value;

/**
 * One test file's declaration for one suite. A file may carry several registrations (one
 * CUDA and one ROCm, or two CUDA suites); each is independent.
 */
@Value.Immutable
@ValueStyle
public abstract class Registration {
  /**
   * The test file, repository-relative.
   *
   * @return e.g. {@code tests/e2e/test_megatron.py}
   */
  public abstract String file();

  /**
   * The hardware backend.
   *
   * @return e.g. {@code cuda}
   */
  public abstract String backend();

  /**
   * The suite (stage) the file runs in.
   *
   * @return e.g. {@code stage-c-4-gpu-h200}
   */
  public abstract String suite();

  /**
   * The estimated run time.
   *
   * @return seconds, finite and not negative
   */
  public abstract double estTimeSeconds();

  /**
   * Domain labels; GPU registrations need at least one.
   *
   * @return label names
   */
  public abstract List<String> labels();

  /**
   * Whether the test runs only when nightly-only tests are admitted.
   *
   * @return the flag
   */
  @Value.Default
  public boolean nightly() {
    return false;
  }

  /**
   * Why the registration is disabled.
   *
   * @return the reason, absent when enabled
   */
  public abstract Optional<String> disabled();

  /**
   * Rejects an estimate that is negative or not finite and a blank reason for disabling; the rules that
   * need the policy (a declared backend, suite and labels) are checked by the suite registry.
   *
   * @throws InvalidValueException naming the field
   */
  @Value.Check
  protected void check() {
    ValueCheck.of("Registration")
        .require(Double.isFinite(estTimeSeconds()) && estTimeSeconds() >= 0, "estTimeSeconds",
            () -> "est_time must be a finite number of seconds, at least 0; got " + estTimeSeconds())
        .require(disabled().map(d -> !d.isBlank()).orElse(true), "disabled",
            () -> "a disabled registration needs a reason (or null when enabled)")
        .done();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link Registration}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRegistration.Builder {
    Builder() {}
  }
}

package dev.cipolicy.api.policy;

import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import org.immutables.value.Value;

/** The {@code /rerun-test <file>} command: its grammar and which backends it serves. */
@Value.Immutable
@ValueStyle
public abstract class FileRunRules {
  /**
   * The command word.
   *
   * @return {@code /rerun-test} by default
   */
  @Value.Default
  public String command() {
    return "/rerun-test";
  }

  /**
   * The test directories under {@code tests/} a rerun may name.
   *
   * @return {@code [e2e, fast, fast-gpu, ci]} by default
   */
  @SuppressWarnings("immutables:untype") // a default list is set whole, never appended to
  @Value.Default
  public List<String> testRoots() {
    return List.of("e2e", "fast", "fast-gpu", "ci");
  }

  /**
   * The backends a rerun can run on, in order; the first is the CPU backend.
   *
   * @return {@code [cpu, cuda]} by default
   */
  @SuppressWarnings("immutables:untype") // a default list is set whole, never appended to
  @Value.Default
  public List<String> backends() {
    return List.of("cpu", "cuda");
  }

  /**
   * The image tag used when the request names none.
   *
   * @return {@code latest} by default
   */
  @Value.Default
  public String defaultImageTag() {
    return "latest";
  }

  /**
   * The reference rules.
   *
   * @return rules with every default
   */
  public static FileRunRules defaults() {
    return builder().build();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link FileRunRules}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableFileRunRules.Builder {
    Builder() {}
  }
}

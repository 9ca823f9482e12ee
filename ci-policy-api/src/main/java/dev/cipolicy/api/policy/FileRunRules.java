package dev.cipolicy.api.policy;

import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import org.immutables.value.Value;

/**
 * The {@code /rerun-test <file>} command: its grammar and which backends it serves. A rerun names one file
 * {@code <test_directory>/<root>/(<dir>/)*<file_prefix><name><file_suffix>}. Every default is neutral (any
 * file under {@code tests/}, on any backend); a project declares its own layout, e.g. the reference policy's
 * {@code tests/<e2e|fast|fast-gpu|ci>/.../test_<name>.py} on {@code [cpu, cuda]}.
 */
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
   * The repository directory the test files live under: one or more {@code /}-separated segments.
   *
   * @return {@code tests} by default
   */
  @Value.Default
  public String testDirectory() {
    return "tests";
  }

  /**
   * The directories under {@link #testDirectory()} a rerun may name; empty for any directory.
   *
   * @return empty by default; the reference policy declares {@code [e2e, fast, fast-gpu, ci]}
   */
  public abstract List<String> testRoots();

  /**
   * What a test file's name starts with.
   *
   * @return empty by default; the reference policy declares {@code test_}
   */
  @Value.Default
  public String filePrefix() {
    return "";
  }

  /**
   * What a test file's name ends with.
   *
   * @return empty by default; the reference policy declares {@code .py}
   */
  @Value.Default
  public String fileSuffix() {
    return "";
  }

  /**
   * The backends a rerun can run on, in order; empty for every backend of the policy.
   *
   * @return empty by default; the reference policy declares {@code [cpu, cuda]}
   */
  public abstract List<String> backends();

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
   * The neutral rules.
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

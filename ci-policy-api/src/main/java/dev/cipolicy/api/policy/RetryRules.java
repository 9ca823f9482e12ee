package dev.cipolicy.api.policy;

import dev.cipolicy.api.internal.ValueStyle;
import java.util.List;
import org.immutables.value.Value;

/**
 * How a failed test file's output is classified for retry. Tokens match whole words or
 * phrases only, so {@code OOM} never matches {@code room}.
 */
@Value.Immutable
@ValueStyle
public abstract class RetryRules {
  /** The non-retriable tokens of the reference behaviour. */
  public static final List<String> DEFAULT_NON_RETRIABLE = List.of("SyntaxError", "ImportError",
      "ModuleNotFoundError", "NameError", "TypeError", "AttributeError", "RuntimeError", "CUDA out of memory",
      "OOM", "Segmentation fault", "core dumped", "ConnectionRefusedError", "FileNotFoundError");

  /** Regular expressions that recognise an assertion about a metric (loss, throughput, accuracy...). */
  public static final List<String> DEFAULT_METRIC_PATTERNS = List.of(
      "AssertionError:.*\\b(loss|grad_norm|reward|kl|throughput|tokens/s|accuracy|perplexity|metric)\\b",
      "\\b(loss|grad_norm|reward|throughput|accuracy|metric)\\b.*\\b(not within|exceeds|below|above|tolerance|"
          + "threshold)\\b");

  /**
   * Tokens or phrases that make a failure non-retriable.
   *
   * @return whole-token phrases
   */
  @SuppressWarnings("immutables:untype") // a default list is set whole, never appended to
  @Value.Default
  public List<String> nonRetriable() {
    return DEFAULT_NON_RETRIABLE;
  }

  /**
   * Patterns of an assertion about metrics, which is retriable (metrics are noisy).
   *
   * @return Java regular expressions, found anywhere in a line
   */
  @SuppressWarnings("immutables:untype") // a default list is set whole, never appended to
  @Value.Default
  public List<String> metricAssertionPatterns() {
    return DEFAULT_METRIC_PATTERNS;
  }

  /**
   * The token of a bare assertion failure, retriable when nothing else matched.
   *
   * @return {@code AssertionError} by default
   */
  @Value.Default
  public String assertionToken() {
    return "AssertionError";
  }

  /**
   * The reference rules.
   *
   * @return rules with every default
   */
  public static RetryRules defaults() {
    return ImmutableRetryRules.builder().build();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static ImmutableRetryRules.Builder builder() {
    return ImmutableRetryRules.builder();
  }
}

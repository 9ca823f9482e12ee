package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
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
    return builder().build();
  }

  /**
   * Rejects a blank token and a metric pattern that does not compile.
   *
   * @throws InvalidValueException naming the field and the element's index
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("RetryRules");
    for (int i = 0; i < nonRetriable().size(); i++) {
      check.require(!nonRetriable().get(i).isBlank(), "nonRetriable[" + i + "]",
          () -> "a non-retriable token must not be blank");
    }
    for (int i = 0; i < metricAssertionPatterns().size(); i++) {
      String pattern = metricAssertionPatterns().get(i);
      try {
        Pattern.compile(pattern);
      } catch (PatternSyntaxException e) {
        check.require(false, "metricAssertionPatterns[" + i + "]", () -> "regular expression '" + pattern
            + "' does not compile: " + e.getDescription() + " near index " + e.getIndex());
      }
    }
    check.require(!assertionToken().isBlank(), "assertionToken", () -> "the assertion token must not be blank")
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

  /** Builds a {@link RetryRules}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRetryRules.Builder {
    Builder() {}
  }
}

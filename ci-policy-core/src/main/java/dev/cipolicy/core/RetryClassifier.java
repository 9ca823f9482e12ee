package dev.cipolicy.core;

import dev.cipolicy.api.policy.RetryRules;
import dev.cipolicy.api.suite.RetryVerdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Classifies a failed test file's output for retry: never retry a timeout; non-retriable
 * when a listed token occurs; retriable on an assertion about metrics; retriable on a bare assertion
 * failure; otherwise not. Tokens match whole words or phrases — a token must not be preceded or
 * followed by a letter, digit or underscore — so {@code OOM} does not match {@code room}. Immutable and
 * thread-safe.
 */
public final class RetryClassifier {
  private final RetryRules rules;
  private final List<Pattern> metricPatterns;

  private RetryClassifier(RetryRules rules) {
    this.rules = rules;
    List<Pattern> ps = new ArrayList<>();
    for (String p : rules.metricAssertionPatterns()) {
      ps.add(Pattern.compile(p));
    }
    this.metricPatterns = List.copyOf(ps);
  }

  /**
   * A classifier for checked rules (from {@code policy.retry()}).
   *
   * @param rules the rules
   * @return the classifier
   * @throws java.util.regex.PatternSyntaxException when a pattern does not compile; policies loaded
   *     through {@link PolicyResolver} are checked before
   */
  public static RetryClassifier of(RetryRules rules) {
    return new RetryClassifier(rules);
  }

  /**
   * Classifies one failure.
   *
   * @param output the captured output of the failed file
   * @param timedOut whether the file hit its timeout
   * @return the verdict with the rule that fired
   */
  public RetryVerdict classify(String output, boolean timedOut) {
    if (timedOut) {
      return new RetryVerdict(false, "timeout", Optional.empty(), "a timed-out test is never retried");
    }
    for (String token : rules.nonRetriable()) {
      if (containsToken(output, token)) {
        return new RetryVerdict(false, "non-retriable", Optional.of(token),
            "the output contains '" + token + "', a failure a retry cannot fix");
      }
    }
    for (Pattern p : metricPatterns) {
      Matcher m = p.matcher(output);
      if (m.find()) {
        return new RetryVerdict(true, "metric-assertion", Optional.of(p.pattern()),
            "an assertion about a metric failed ('" + abbreviate(m.group()) + "'); metrics are noisy, so retry");
      }
    }
    if (containsToken(output, rules.assertionToken())) {
      return new RetryVerdict(true, "assertion-error", Optional.of(rules.assertionToken()),
          "a bare " + rules.assertionToken() + " may be flaky, so retry");
    }
    return new RetryVerdict(false, "no-match", Optional.empty(),
        "no rule recognises the failure, so it is not retried");
  }

  /**
   * Whether {@code text} contains {@code token} as a whole word or phrase.
   *
   * @param text the text to search
   * @param token the token or phrase
   * @return true when an occurrence is bounded by non-word characters or the text's ends
   */
  public static boolean containsToken(String text, String token) {
    if (token.isEmpty()) {
      return false;
    }
    int from = 0;
    while (true) {
      int i = text.indexOf(token, from);
      if (i < 0) {
        return false;
      }
      int end = i + token.length();
      boolean startOk = i == 0 || !isWordChar(text.charAt(i - 1)) || !isWordChar(token.charAt(0));
      boolean endOk = end == text.length() || !isWordChar(text.charAt(end))
          || !isWordChar(token.charAt(token.length() - 1));
      if (startOk && endOk) {
        return true;
      }
      from = i + 1;
    }
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  private static String abbreviate(String s) {
    String oneLine = s.strip();
    return oneLine.length() <= 120 ? oneLine : oneLine.substring(0, 117) + "...";
  }
}

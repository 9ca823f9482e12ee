package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cipolicy.api.policy.RetryRules;
import dev.cipolicy.api.suite.RetryVerdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Retry classification with whole-token matching. */
class RetryClassifierTest {
  private final RetryClassifier classifier = RetryClassifier.of(RetryRules.defaults());

  @Test
  void aTimeoutIsNeverRetried() {
    RetryVerdict v = classifier.classify("AssertionError: loss 3.2 not within tolerance", true);
    assertThat(v.retriable()).isFalse();
    assertThat(v.rule()).isEqualTo("timeout");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "Traceback... ImportError: cannot import name 'x'|ImportError",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate|CUDA out of memory",
      "worker killed (OOM)|OOM",
      "Fatal Python error: Segmentation fault|Segmentation fault",
      "Aborted (core dumped)|core dumped",
      "ConnectionRefusedError: [Errno 111]|ConnectionRefusedError",
      "AssertionError: loss diverged; RuntimeError: NCCL error|RuntimeError"})
  void nonRetriableTokensWin(String output, String token) {
    RetryVerdict v = classifier.classify(output, false);
    assertThat(v.retriable()).isFalse();
    assertThat(v.rule()).isEqualTo("non-retriable");
    assertThat(v.matched()).contains(token);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "no room left on the bench; AssertionError: expected 3 got 4",
      "zoom level mismatch: AssertionError",
      "BOOM AssertionError",
      "MyRuntimeErrorHandler failed; AssertionError"})
  void tokensMatchWholeWordsOnly(String output) {
    RetryVerdict v = classifier.classify(output, false);
    assertThat(v.rule()).isEqualTo("assertion-error");
    assertThat(v.retriable()).isTrue();
  }

  @Test
  void metricAssertionsAreRetriable() {
    RetryVerdict v = classifier.classify("E   AssertionError: train loss 2.91 exceeds 2.5 at step 100", false);
    assertThat(v.retriable()).isTrue();
    assertThat(v.rule()).isEqualTo("metric-assertion");
    assertThat(v.reason()).contains("AssertionError: train loss");
  }

  @Test
  void anythingElseIsNotRetried() {
    RetryVerdict v = classifier.classify("process exited with code 3", false);
    assertThat(v.retriable()).isFalse();
    assertThat(v.rule()).isEqualTo("no-match");
  }

  @Test
  void tokenBoundaries() {
    assertThat(RetryClassifier.containsToken("OOM", "OOM")).isTrue();
    assertThat(RetryClassifier.containsToken("(OOM)", "OOM")).isTrue();
    assertThat(RetryClassifier.containsToken("room", "OOM")).isFalse();
    assertThat(RetryClassifier.containsToken("OOMKilled", "OOM")).isFalse();
    assertThat(RetryClassifier.containsToken("OOM_x", "OOM")).isFalse();
    assertThat(RetryClassifier.containsToken("xOOM OOM", "OOM")).isTrue();
    assertThat(RetryClassifier.containsToken("a\nCUDA out of memory.", "CUDA out of memory")).isTrue();
    assertThat(RetryClassifier.containsToken("", "OOM")).isFalse();
  }
}

package dev.cipolicy.api.pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cipolicy.api.InvalidValueException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** RE2 syntax, linear-time whole matches, named groups, and the limits of a {@link NamePattern}. */
class NamePatternTest {
  private static final String REFERENCE =
      "(?:nightly-)?stage-(?<tier>[abc])-(?:cpu|(?<gpus>[1-9][0-9]{0,2})-gpu-(?<hardware>[a-z0-9]+))";

  private static String refused(String regex) {
    InvalidValueException e = catchThrowableOfType(InvalidValueException.class, () -> NamePattern.compile(regex));
    assertThat(e).as(regex).isNotNull();
    assertThat(e.getMessage()).as(regex).doesNotContain("\n").startsWith("NamePattern.pattern: ");
    return e.getMessage().substring("NamePattern.pattern: ".length());
  }

  @Test
  void matchesWholeNamesAndReadsNamedGroups() {
    NamePattern p = NamePattern.compile(REFERENCE);
    assertThat(p.groupNames()).containsExactly("tier", "gpus", "hardware");
    NameMatch m = p.matchWhole("stage-c-4-gpu-h200").orElseThrow();
    assertThat(m.group("tier")).contains("c");
    assertThat(m.group("gpus")).contains("4");
    assertThat(m.group("hardware")).contains("h200");
    NameMatch cpu = p.matchWhole("nightly-stage-a-cpu").orElseThrow();
    assertThat(cpu.group("gpus")).isEmpty();
    assertThat(cpu.group("nope")).isEmpty();
    assertThat(p.matches("stage-a-cpu")).isTrue();
    assertThat(p.matches("stage-a-cpu-")).isFalse();
    assertThat(p.matches("xstage-a-cpu")).isFalse();
    assertThat(p.matchWhole("stage-d-cpu")).isEmpty();
  }

  @Test
  void concatenatedNullableAlternationsMatchInLinearTime() {
    // java.util.regex backtracks exponentially on this pattern at the end of a name that does not match
    NamePattern p = NamePattern.compile("(?:a?|b?)".repeat(50) + "c");
    String miss = "ab".repeat(30) + "d";
    assertThat(assertTimeoutPreemptively(Duration.ofSeconds(5), () -> p.matches(miss))).isFalse();
    assertThat(p.matches("ab".repeat(25) + "c")).isTrue();
    assertThat(p.matches("ab".repeat(26) + "c")).isFalse(); // 51 letters cannot come from 50 branches
  }

  @Test
  void nestedStarsMatchInLinearTime() {
    NamePattern p = NamePattern.compile(REFERENCE + "|(?:(?:x*)*)*y");
    assertThat(assertTimeoutPreemptively(Duration.ofSeconds(5), () -> p.matchWhole("x".repeat(40) + "z")))
        .isEmpty();
    assertThat(p.matches("x".repeat(40) + "y")).isTrue();
    assertThat(NamePattern.compile("(.*a){12}").matches("a".repeat(60) + "-")).isFalse();
  }

  @Test
  void zeroWidthRepetitionsAreRefusedWithTheIndexWhenCountedTooHigh() {
    assertThat(refused("(?:(?:^){2147483647}){2147483647}" + REFERENCE)).isEqualTo(
        "the counted repetition {2147483647} at index 8 exceeds 64, the longest name matched");
    assertThat(refused("(?:(?=)){2000000000}" + REFERENCE)).isEqualTo(
        "the counted repetition {2000000000} at index 8 exceeds 64, the longest name matched");
    // a zero-width loop within the counts is harmless to RE2
    assertThat(NamePattern.compile("(?:(?:^){64}){1}stage").matches("stage")).isTrue();
  }

  @Test
  void nestedCountedRepetitionsMultiply() {
    assertThat(NamePattern.compile("(?:[a-z]{1,8}-){8}").matches("ab-".repeat(8))).isTrue();
    assertThat(refused("(?:[a-z]{1,8}-){9}")).isEqualTo("the counted repetition {9} at index 15 repeats 72 times"
        + " with the counted repetitions it is nested in; at most 64, the longest name matched");
    assertThat(refused("((((a{64}){64}){64}){64})")).contains("the counted repetition {64} at index 10 repeats 4096");
    assertThat(refused("(?:a{65})")).contains("{65} at index 4 exceeds 64");
    // a brace that is no repetition is a literal, a class hides what it holds
    assertThat(NamePattern.compile("a{x}[{]{2}[[:alpha:]]{3}\\Q{99}\\E").matches("a{x}{{abc{99}")).isTrue();
    assertThat(refused("[]a[](?:a{10}){10}")).contains("{10} at index 14 repeats 100");
    assertThat(refused("\\Q(\\E(?:a{10}){10}")).contains("{10} at index 14 repeats 100");
  }

  @Test
  void javaOnlySyntaxIsRefusedSayingWhatAndWhere() {
    assertThat(refused("stage-(?=a)a")).isEqualTo("not RE2 syntax at index 6: lookahead is not supported"
        + " (invalid or unsupported Perl syntax: '(?=')");
    assertThat(refused("x(?<=a)b")).startsWith("not RE2 syntax at index 1: lookbehind is not supported");
    assertThat(refused("(a)\\1")).startsWith("not RE2 syntax at index 3: back references are not supported");
    assertThat(refused("stage-a++")).startsWith("not RE2 syntax at index 7: possessive quantifiers are not"
        + " supported");
    assertThat(refused("(?x)stage # c")).startsWith("not RE2 syntax at index 0: invalid or unsupported Perl"
        + " syntax");
    assertThat(refused("stage-(")).isEqualTo("not RE2 syntax at index 0: missing closing ) (missing closing ):"
        + " 'stage-(')");
  }

  @Test
  void sizeLimits() {
    assertThat(NamePattern.compile("a".repeat(NamePattern.MAX_LENGTH)).regex()).hasSize(512);
    assertThat(refused("a".repeat(NamePattern.MAX_LENGTH + 1))).isEqualTo("must be at most 512, got 513");
    NamePattern any = NamePattern.compile(".*");
    assertThat(any.matches("x".repeat(NamePattern.MAX_NAME_LENGTH))).isTrue();
    assertThat(any.matches("x".repeat(NamePattern.MAX_NAME_LENGTH + 1))).isFalse();
    assertThat(any.matchWhole("x".repeat(NamePattern.MAX_NAME_LENGTH + 1))).isEqualTo(Optional.empty());
  }

  @Test
  void equalByTheRegex() {
    assertThat(NamePattern.compile("a+")).isEqualTo(NamePattern.compile("a+")).hasToString("a+")
        .isNotEqualTo(NamePattern.compile("a*"));
    assertThat(NamePattern.compile("a").hashCode()).isEqualTo(NamePattern.compile("a").hashCode());
  }
}

package dev.cipolicy.testkit.golden;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UnifiedDiffTest {

  @Test
  void printsAUnifiedDiffWithContext() {
    String expected = "a\nb\nc\nd\ne\nf\ng\nh\n";
    String actual = "a\nb\nc\nD\ne\nf\ng\nh\ni\n";

    assertThat(UnifiedDiff.between("golden", expected, "recorded", actual)).isEqualTo("""
        --- golden
        +++ recorded
        @@ -1,8 +1,9 @@
         a
         b
         c
        -d
        +D
         e
         f
         g
         h
        +i
        """);
  }

  @Test
  void equalTextsHaveNoDiffAndNewlineOnlyDifferencesAreNamed() {
    assertThat(UnifiedDiff.between("x", "a\n", "y", "a\n")).isEmpty();
    assertThat(UnifiedDiff.between("x", "a\n", "y", "a")).contains("differ only in line endings");
  }
}

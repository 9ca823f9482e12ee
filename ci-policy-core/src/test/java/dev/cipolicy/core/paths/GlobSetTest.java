package dev.cipolicy.core.paths;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.CiPolicyException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Examples of every glob construct, first-match order, the state cache bound and every invalid glob. */
class GlobSetTest {

  private static void assertMatches(String glob, String... paths) {
    GlobSet set = GlobSet.compile(List.of(glob));
    for (String p : paths) {
      assertThat(set.matches(p)).as("%s matches %s", glob, p).isTrue();
    }
  }

  private static void assertNoMatch(String glob, String... paths) {
    GlobSet set = GlobSet.compile(List.of(glob));
    for (String p : paths) {
      assertThat(set.matches(p)).as("%s does not match %s", glob, p).isFalse();
    }
  }

  @Nested
  class Literals {
    @Test
    void aLiteralGlobMatchesExactlyThatPath() {
      assertMatches("README.md", "README.md");
      assertNoMatch("README.md", "readme.md", "a/README.md", "README.mdx", "README.m", "", "README.md/");
    }

    @Test
    void literalsMayBeAnyCharacterIncludingNonAsciiAndNewline() {
      assertMatches("dök/ü\n😀.txt", "dök/ü\n😀.txt");
      assertNoMatch("dök/ü\n😀.txt", "dok/u\n😀.txt", "dök/ü 😀.txt");
    }

    @Test
    void closingBraceCommaAndClosingBracketOutsideTheirConstructsAreLiteral() {
      assertMatches("a,b}c]", "a,b}c]");
      assertMatches("!x", "!x");
    }
  }

  @Nested
  class Star {
    @Test
    void matchesAnyRunOfCharactersWithinOneSegment() {
      assertMatches("*.md", "a.md", ".md", "long name.md");
      assertNoMatch("*.md", "a/b.md", "a.mdx");
      assertMatches("src/*.py", "src/x.py", "src/.py");
      assertNoMatch("src/*.py", "src/a/x.py", "src.py", "x/src/x.py");
      assertMatches("a*b*c", "abc", "aXbYc", "abbbc");
      assertNoMatch("a*b*c", "a/bc", "ab/c");
    }

    @Test
    void matchesNewlines() {
      assertMatches("*.md", "a\nb.md");
    }
  }

  @Nested
  class QuestionMark {
    @Test
    void matchesExactlyOneCharacterExceptSlash() {
      assertMatches("a?c", "abc", "a.c", "a?c");
      assertNoMatch("a?c", "ac", "abbc", "a/c");
    }

    @Test
    void matchesOneCodePointEvenOutsideTheBasicPlane() {
      assertMatches("?.txt", "😀.txt", "é.txt");
      assertNoMatch("?.txt", "😀😀.txt");
    }
  }

  @Nested
  class CharacterClasses {
    @Test
    void listsRangesAndNegation() {
      assertMatches("[abc].txt", "a.txt", "c.txt");
      assertNoMatch("[abc].txt", "d.txt", "ab.txt", ".txt");
      assertMatches("x[a-c0-2]", "xb", "x1");
      assertNoMatch("x[a-c0-2]", "xd", "x3", "x-");
      assertMatches("a[!bc]d", "aad", "a.d", "a!d");
      assertNoMatch("a[!bc]d", "abd", "acd", "a/d", "ad");
    }

    @Test
    void neverMatchSlashEvenWhenARangeSpansIt() {
      assertMatches("a[.-0]b", "a.b", "a0b");
      assertNoMatch("a[.-0]b", "a/b");
    }

    @Test
    void dashFirstOrLastAndEscapedCharactersAreLiteral() {
      assertMatches("[-a]", "-", "a");
      assertMatches("[a-]", "-", "a");
      assertNoMatch("[a-]", "b");
      assertMatches("[\\]\\\\]", "]", "\\");
      assertMatches("[[!{]", "[", "!", "{");
      assertMatches("[!!]", "a");
      assertNoMatch("[!!]", "!");
    }

    @Test
    void matchNonAsciiCodePoints() {
      assertMatches("[ä-ü😀]", "ö", "😀");
      assertNoMatch("[ä-ü😀]", "a", "😁");
    }
  }

  @Nested
  class Groups {
    @Test
    void matchAnyAlternative() {
      assertMatches("*.{md,mdx}", "a.md", "a.mdx");
      assertNoMatch("*.{md,mdx}", "a.m", "a.mdxx", "a.{md,mdx}");
      assertMatches("{src,lib}/x/**", "src/x/a", "lib/x/a/b");
      assertNoMatch("{src,lib}/x/**", "test/x/a", "src/x");
    }

    @Test
    void mayHoldEmptyAlternativesWildcardsAndSlashes() {
      assertMatches("{,lib/}a", "a", "lib/a");
      assertMatches("{a*,*b}.py", "ax.py", "xb.py");
      assertNoMatch("{a*,*b}.py", "xx.py");
      assertMatches("{}x", "x");
    }

    @Test
    void areExpandedBeforeDoubleStarIsClassified() {
      // "{src/,}**/*.md" is "src/**/*.md" plus "**/*.md": zero or more directories in both.
      assertMatches("{src/,}**/*.md", "src/a.md", "a.md", "x/y/a.md");
      // "*{*,b}" is "*" followed by "*" or "b": never a "**", so it stays within one segment.
      assertNoMatch("*{*,b}", "a/b");
      assertMatches("*{*,b}", "ab");
    }
  }

  @Nested
  class Escapes {
    @Test
    void escapeAnyCharacter() {
      assertMatches("\\*.md", "*.md");
      assertNoMatch("\\*.md", "a.md");
      assertMatches("\\{a,b\\}", "{a,b}");
      assertMatches("a\\?", "a?");
      assertNoMatch("a\\?", "ab");
      assertMatches("\\a\\[", "a[");
    }
  }

  @Nested
  class DoubleStar {
    @Test
    void leadingDoubleStarSlashMatchesZeroOrMoreDirectories() {
      assertMatches("**/*.md", "README.md", "a/b/c.md", "a/.md");
      assertNoMatch("**/*.md", "README.mdx", "a/b.md/c");
      assertMatches("**/tests/*.py", "tests/a.py", "x/y/tests/a.py");
      assertNoMatch("**/tests/*.py", "xtests/a.py", "tests/a/b.py");
    }

    @Test
    void doubleStarSlashAfterASlashMatchesZeroOrMoreDirectories() {
      assertMatches("a/**/b", "a/b", "a/x/b", "a/x/y/b");
      assertNoMatch("a/**/b", "ab", "a/xb", "a/b/c", "xa/b");
    }

    @Test
    void trailingSlashDoubleStarMatchesEverythingBelowButNotTheDirectoryItself() {
      assertMatches("docs/**", "docs/a", "docs/a/b", "docs/.x", "docs/a/");
      assertNoMatch("docs/**", "docs", "docs/", "docsx/a", "a/docs/b");
      assertMatches("**/**", "a", "a/b");
    }

    @Test
    void anyOtherDoubleStarMatchesAnythingIncludingSlashes() {
      assertMatches("a**b", "ab", "axb", "a/x/b");
      assertMatches("**.md", "a.md", "a/b.md", ".md");
      assertMatches("**", "", "a", "a/b/c");
      assertMatches("a/**b", "a/b", "a/x/yb");
      assertNoMatch("a/**b", "ab");
    }

    @Test
    void aRunOfThreeOrMoreStarsIsADoubleStar() {
      assertMatches("***/*.md", "a.md", "a/b.md");
      assertMatches("docs/****", "docs/a/b");
    }
  }

  @Nested
  class FirstMatch {
    private final GlobSet set = GlobSet.compile(List.of("docs/**", "**/*.md", "*.md", "src/**/*.py", "src/main.py"));

    @Test
    void reportsTheLowestMatchingIndex() {
      assertThat(set.firstMatch("docs/a.md")).isEqualTo(OptionalInt.of(0));
      assertThat(set.firstMatch("README.md")).isEqualTo(OptionalInt.of(1));
      assertThat(set.firstMatch("src/a/b.py")).isEqualTo(OptionalInt.of(3));
      assertThat(set.firstMatch("src/main.py")).isEqualTo(OptionalInt.of(3));
      assertThat(set.firstMatch("src/main.rs")).isEmpty();
      assertThat(set.matches("src/main.rs")).isFalse();
      assertThat(set.matches("x/y.md")).isTrue();
    }

    @Test
    void exposesTheGlobsInOrder() {
      assertThat(set.globs()).containsExactly("docs/**", "**/*.md", "*.md", "src/**/*.py", "src/main.py");
      assertThat(set.size()).isEqualTo(5);
      assertThatThrownBy(() -> set.globs().add("x")).isInstanceOf(UnsupportedOperationException.class);
      assertThat(set).hasToString("GlobSet[docs/**, **/*.md, *.md, src/**/*.py, src/main.py]");
    }

    @Test
    void copiesTheGivenList() {
      List<String> globs = new ArrayList<>(List.of("a"));
      GlobSet copy = GlobSet.compile(globs);
      globs.set(0, "b");
      assertThat(copy.globs()).containsExactly("a");
      assertThat(copy.matches("a")).isTrue();
    }

    @Test
    void anEmptySetMatchesNothing() {
      GlobSet empty = GlobSet.compile(List.of());
      assertThat(empty.size()).isZero();
      assertThat(empty.firstMatch("a")).isEmpty();
      assertThat(empty.firstMatch("")).isEmpty();
    }

    @Test
    void duplicateGlobsReportTheFirst() {
      assertThat(GlobSet.compile(List.of("x", "*", "*")).firstMatch("y")).isEqualTo(OptionalInt.of(1));
    }
  }

  @Nested
  class StateCache {
    private final List<String> globs = List.of("docs/**", "**/*.md", "src/*/name?.py", "{a,b}/x/**", "[ab]*.txt");
    private final List<String> paths = List.of("docs/a", "x/y.md", "src/q/name1.py", "src/q/name12.py", "b/x/y",
        "c/x/y", "ab.txt", "c.txt", "", "docs", "😀/ü.md");

    @Test
    void aFullCacheFallsBackToSimulationWithTheSameAnswers() {
      GlobSet cached = GlobSet.compile(globs);
      for (long bound : List.of(0L, 1_000L, 3_000L)) {
        GlobSet bounded = GlobSet.compile(globs, bound);
        for (String p : paths) {
          assertThat(bounded.firstMatch(p)).as("%s with bound %s", p, bound).isEqualTo(cached.firstMatch(p));
        }
        assertThat(bounded.cachedStates()).isLessThan(cached.cachedStates());
      }
      assertThat(GlobSet.compile(globs, 0).cachedStates()).isEqualTo(1);
    }

    @Test
    void rejectsANegativeBound() {
      assertThatThrownBy(() -> GlobSet.compile(globs, -1)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Nested
  class InvalidGlobs {
    private InvalidGlobException invalid(String glob) {
      try {
        GlobSet.compile(List.of("ok/**", glob));
      } catch (InvalidGlobException e) {
        assertThat(e.glob()).isEqualTo(glob);
        assertThat(e.index()).isEqualTo(1);
        assertThat(e.getMessage()).startsWith("invalid glob #1 \"" + glob + "\" at position " + e.position() + ": ");
        return e;
      }
      throw new AssertionError("expected " + glob + " to be rejected");
    }

    @Test
    void empty() {
      InvalidGlobException e = invalid("");
      assertThat(e.position()).isZero();
      assertThat(e).hasMessageEndingWith("the glob is empty; expected at least one character");
    }

    @Test
    void leadingSlash() {
      InvalidGlobException e = invalid("/src/**");
      assertThat(e.position()).isZero();
      assertThat(e).hasMessageContaining("starts with '/'; expected a repository-relative path");
    }

    @Test
    void alternativeWithLeadingSlash() {
      InvalidGlobException e = invalid("{a,/b}");
      assertThat(e.position()).isEqualTo(3);
      assertThat(e).hasMessageContaining("an alternative starts with '/'");
    }

    @Test
    void unclosedClass() {
      InvalidGlobException e = invalid("src/[ab");
      assertThat(e.position()).isEqualTo(7);
      assertThat(e).hasMessage("invalid glob #1 \"src/[ab\" at position 7: the character class opened at"
          + " position 4 is not closed; expected ']'");
    }

    @Test
    void emptyClass() {
      assertThat(invalid("a[]").position()).isEqualTo(2);
      assertThat(invalid("a[!]b")).hasMessageContaining("is empty; expected at least one character before ']'");
    }

    @Test
    void slashInClass() {
      assertThat(invalid("a[b/]").position()).isEqualTo(3);
      assertThat(invalid("a[\\/]")).hasMessageContaining("'/' inside a character class");
      assertThat(invalid("a[.-/]").position()).isEqualTo(4);
    }

    @Test
    void reversedRange() {
      InvalidGlobException e = invalid("[z-a]");
      assertThat(e.position()).isEqualTo(1);
      assertThat(e).hasMessageContaining(
          "the range z-a is reversed; expected a range whose start is not after its end");
    }

    @Test
    void unclosedGroup() {
      InvalidGlobException e = invalid("*.{md,mdx");
      assertThat(e.position()).isEqualTo(9);
      assertThat(e).hasMessageEndingWith("the group opened at position 2 is not closed; expected '}'");
    }

    @Test
    void nestedGroup() {
      InvalidGlobException e = invalid("{a,{b,c}}");
      assertThat(e.position()).isEqualTo(3);
      assertThat(e).hasMessageEndingWith(
          "'{' inside the group opened at position 0 (groups do not nest); expected ',' or '}'");
    }

    @Test
    void trailingBackslash() {
      InvalidGlobException e = invalid("a\\");
      assertThat(e.position()).isEqualTo(1);
      assertThat(e).hasMessageEndingWith("unfinished escape '\\'; expected a character after '\\'");
      assertThat(invalid("[a\\").position()).isEqualTo(2);
    }

    @Test
    void tooManyAlternatives() {
      assertThat(invalid("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"))
          .hasMessageContaining("more than 1024 alternatives");
      GlobSet largest = GlobSet.compile(List.of("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"));
      assertThat(largest.matches("ababababab")).isTrue();
      assertThat(largest.matches("abababababa")).isFalse();
    }

    @Test
    void reportsTheFirstInvalidGlob() {
      assertThatThrownBy(() -> GlobSet.compile(List.of("a", "[", "{")))
          .isInstanceOfSatisfying(InvalidGlobException.class, e -> assertThat(e.index()).isEqualTo(1))
          .isInstanceOf(CiPolicyException.class);
    }
  }
}

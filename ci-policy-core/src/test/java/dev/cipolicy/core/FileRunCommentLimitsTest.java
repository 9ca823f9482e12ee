package dev.cipolicy.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.cipolicy.api.InvalidInputException;
import dev.cipolicy.api.suite.FileRunDecision;
import dev.cipolicy.api.suite.Permission;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.generators.Generate;

/** The {@code /rerun-test} comment scanner: linear, capped, and equivalent to the grammar it replaces. */
class FileRunCommentLimitsTest {
  private final FileRunPlanner planner = FileRunPlanner.of(ReferencePolicy.registry());

  /** The regular expression the scanner replaces; safe only on short input (it recursed per segment). */
  private static final Pattern OLD = Pattern.compile(Pattern.quote("/rerun-test") + " +(tests/(?:"
      + ReferencePolicy.loaded().policy().fileRun().testRoots().stream().map(Pattern::quote)
      .collect(Collectors.joining("|")) + ")(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*/test_[A-Za-z0-9_][A-Za-z0-9_.-]*\\.py)");

  private static String deep(int segments) {
    return "/rerun-test tests/e2e/" + "a/".repeat(segments) + "test_x.py";
  }

  @Test
  void aFourKilobyteCommentParsesInsteadOfOverflowingTheStack() {
    String comment = deep(2_000);
    assertThat(comment.length()).isGreaterThan(4_000);
    assertThat(planner.parseComment(comment)).hasValue(comment.substring("/rerun-test ".length()));
    FileRunDecision d = planner.decideComment(comment, Permission.WRITE, 1, Optional.empty());
    assertThat(d.check()).isEqualTo("registered");
  }

  @Test
  void aCommentAtTheCapIsScannedInLinearTime() {
    String comment = deep((FileRunPlanner.MAX_COMMENT_CHARS - 40) / 2);
    assertThat(comment.length()).isLessThanOrEqualTo(FileRunPlanner.MAX_COMMENT_CHARS);
    long t0 = System.nanoTime();
    for (int i = 0; i < 100; i++) {
      assertThat(planner.parseComment(comment)).isPresent();
      assertThat(planner.parseComment(comment + "!")).isEmpty();
    }
    assertThat(System.nanoTime() - t0).as("generous bound against backtracking").isLessThan(10_000_000_000L);
  }

  @Test
  void aCommentOverTheCapIsRejectedWithAClearError() {
    String comment = deep(FileRunPlanner.MAX_COMMENT_CHARS);
    assertThatThrownBy(() -> planner.parseComment(comment)).isInstanceOf(InvalidInputException.class)
        .hasMessage("the /rerun-test comment is " + comment.length() + " characters long; at most 65536 are read");
    FileRunDecision d = planner.decideComment(comment, Permission.WRITE, 1, Optional.empty());
    assertThat(d.check()).isEqualTo("comment");
    assertThat(d.message()).isEqualTo("the /rerun-test comment is " + comment.length()
        + " characters long; at most 65536 are read");
  }

  @Test
  void theScannerAgreesWithTheOldGrammarOnShortComments() {
    List<String> pieces = List.of("/rerun-test", " ", "  ", "tests/", "e2e", "fast", "fast-gpu", "ci", "other", "/",
        "a", "_", ".", "-", "..", "test_", "x", ".py", "py", "\t", "\n", "$", "é", "A9");
    qt().withExamples(20_000)
        .forAll(lists().of(Generate.pick(pieces)).ofSizeBetween(0, 12))
        .checkAssert(parts -> {
          String c = String.join("", parts);
          java.util.regex.Matcher m = OLD.matcher(c.strip());
          Optional<String> old = m.matches() ? Optional.of(m.group(1)) : Optional.empty();
          assertThat(planner.parseComment(c)).as(c).isEqualTo(old);
        });
  }

  @Test
  void arbitraryStringsNeverThrowAnythingButOurException() {
    qt().withExamples(2_000)
        .forAll(strings().allPossible().ofLengthBetween(0, 200))
        .checkAssert(s -> {
          for (String c : List.of(s, "/rerun-test " + s, "/rerun-test tests/e2e/" + s)) {
            FileRunDecision d = planner.decideComment(c, Permission.WRITE, 7, Optional.empty());
            assertThat(d.accepted() || !d.message().isEmpty()).isTrue();
            planner.parseComment(c);
          }
        });
  }
}

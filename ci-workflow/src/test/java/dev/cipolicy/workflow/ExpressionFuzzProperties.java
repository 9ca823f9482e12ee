package dev.cipolicy.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.generators.Generate;

/** Random text never makes the parser or the evaluator throw anything but {@link InvalidExpressionException}. */
class ExpressionFuzzProperties {
  private static final List<String> TOKENS = List.of("(", ")", "[", "]", ".", "*", "!", "&&", "||", "==", "!=", "<",
      "<=", ">", ">=", ",", "'", "''", "'a'", "'{0}'", "'{'", "'}'", "'[1,'", "'{\"a\":1}'", "'[]'", "1", "-2.5", "0x1f",
      "1e3", "0o7", ".5", "NaN", "Infinity", "null", "true", "false", "github", "event", "event_name", "obj", "arr",
      "vars", "needs", "x-y", "contains", "startsWith", "endsWith", "format", "join", "toJSON", "fromJSON", "hashFiles",
      "success", "failure", "cancelled", "always", "foo", " ", "${{", "}}", "\"", "\n", "\u2028", "\u00e9", "$", "{", "}");

  private static final ExpressionEnvironment ENV = ExpressionTest.env(Map.of(
      "github", Map.of("event_name", "push", "event", Map.of("labels", List.of(Map.of("name", "a")))),
      "obj", Map.of("a", 1, "b", List.of(1, 2)), "arr", List.of("x", "y")));

  private static void tryAll(String text) {
    for (int mode = 0; mode < 3; mode++) {
      try {
        Expression e = mode == 0 ? Expression.parse(text) : mode == 1 ? Expression.parseCondition(text)
            : Expression.parseTemplate(text);
        e.evaluate(ENV);
        e.decide(ENV);
        e.evaluate(ExpressionEnvironment.empty());
        e.callsStatusFunction();
      } catch (InvalidExpressionException expected) {
        assertThat(expected.getMessage()).doesNotContain("\n", "\r", "\u2028");
        assertThat(expected.column()).isBetween(1, text.length() + 1);
      }
    }
  }

  @Test
  void tokenSoupNeverThrowsAnythingElse() {
    qt().withExamples(5000).forAll(lists().of(Generate.pick(TOKENS)).ofSizeBetween(0, 14))
        .checkAssert(tokens -> tryAll(String.join("", tokens)));
  }

  @Test
  void spacedTokenSoupNeverThrowsAnythingElse() {
    qt().withExamples(3000).forAll(lists().of(Generate.pick(TOKENS)).ofSizeBetween(0, 14))
        .checkAssert(tokens -> tryAll(String.join(" ", tokens)));
  }

  @Test
  void arbitraryStringsNeverThrowAnythingElse() {
    qt().withExamples(3000).forAll(strings().allPossible().ofLengthBetween(0, 40)).checkAssert(ExpressionFuzzProperties::tryAll);
    qt().withExamples(3000).forAll(strings().betweenCodePoints(0x20, 0x7e).ofLengthBetween(0, 40))
        .checkAssert(ExpressionFuzzProperties::tryAll);
  }
}

package dev.cipolicy.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.workflow.ExprValue.Arr;
import dev.cipolicy.workflow.ExprValue.Bool;
import dev.cipolicy.workflow.ExprValue.Num;
import dev.cipolicy.workflow.ExprValue.Str;
import dev.cipolicy.workflow.ExprValue.Unknown;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The expression language's semantics, case by case from GitHub's documentation of expressions. */
class ExpressionTest {
  static final Map<String, Object> CONTEXTS = Map.of(
      "github", Map.of("event_name", "pull_request", "event", Map.of("pull_request", Map.of("labels",
          List.of(Map.of("name", "run-ci-gpu"), Map.of("name", "Bypass-FastFail"), Map.of("color", "red"))))),
      "obj", ordered("k1", Map.of("v", 1), "k2", Map.of("v", 2), "k3", Map.of("w", 3)),
      "arr", List.of("a", "b", "c"));

  private static Map<String, Object> ordered(Object... kv) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  static ExpressionEnvironment env(Map<String, Object> contexts) {
    return new ExpressionEnvironment() {
      private final Map<String, ExprValue> values = convert(contexts);

      @Override
      public ExprValue context(String name) {
        ExprValue v = values.get(name);
        return v != null ? v : new Unknown(name, Tri.UNKNOWN);
      }

      @Override
      public StatusCheck status(StatusFunction function) {
        return new StatusCheck(function == StatusFunction.FAILURE || function == StatusFunction.CANCELLED
            ? Tri.FALSE : Tri.TRUE, "test");
      }
    };
  }

  private static Map<String, ExprValue> convert(Map<String, Object> contexts) {
    Map<String, ExprValue> m = new java.util.HashMap<>();
    contexts.forEach((k, v) -> m.put(k, ExprValue.fromTree(v)));
    return m;
  }

  static ExprValue eval(String text) {
    return Expression.parse(text).evaluate(env(CONTEXTS));
  }

  /** The value rendered: strings quoted, numbers in GitHub's text, arrays as JSON on one line. */
  static String show(ExprValue v) {
    return Evaluator.display(v);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      "null | null", "true | true", "false | false", "711 | 711", "-9.2 | -9.2", "0xff | 255", "-2.99e-2 | -0.0299",
      "1.5E3 | 1500", "'It''s open source!' | 'It''s open source!'", "NaN | NaN", "Infinity | Infinity",
      "'' | ''"})
  void literals(String expr, String shown) {
    assertThat(show(eval(expr))).isEqualTo(shown);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      // the number coercion table: null 0, true 1, false 0, strings parsed (trimmed, empty 0), else NaN
      "null == 0 | true", "true == 1 | true", "false == 0 | true", "null == false | true", "'' == 0 | true",
      "' 123.5 ' == 123.5 | true", "' 0xff ' == 255 | true", "'1' == 1 | true", "'1e2' == 100 | true",
      "'abc' == 0 | false", "'true' == true | false", "fromJSON('[]') == 0 | false",
      // strings ignore case; NaN equals nothing
      "'abc' == 'ABC' | true", "'abc' != 'ABC' | false", "NaN == NaN | false", "NaN != NaN | true",
      "'NaN' == NaN | false",
      // arrays and objects are equal only to themselves
      "fromJSON('[]') == fromJSON('[]') | false", "fromJSON('{}') == fromJSON('{}') | false", "arr == arr | true",
      "obj == obj | true", "obj != obj | false",
      // ordering: strings by text ignoring case, otherwise numbers; NaN makes every comparison false
      "'abc' < 'def' | true", "'B' > 'a' | true", "'b' >= 'B' | true", "1 < '2' | true", "true > false | true",
      "null < 1 | true", "fromJSON('[]') < 1 | false", "fromJSON('[]') >= 1 | false", "'x' < 1 | false",
      "'x' >= 1 | false", "NaN <= NaN | false", "-0 == 0 | true", "0 <= -0 | true"})
  void coercionTable(String expr, boolean expected) {
    assertThat(eval(expr)).isEqualTo(new Bool(expected));
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      "'a' && 'b' | 'b'", "'' && 'b' | ''", "0 && 'b' | 0", "null && true | null", "0 || 'x' | 'x'",
      "'x' || 0 | 'x'", "null || null | null", "false || '' | ''", "!'' | true", "!'a' | false", "!0 | true",
      "!NaN | true", "!fromJSON('[]') | false", "!null | true"})
  void andOrReturnTheirOperands(String expr, String shown) {
    assertThat(show(eval(expr))).isEqualTo(shown);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      // ! binds tighter than <, < tighter than ==, == tighter than &&, && tighter than ||
      "!2 < 3 | true", "!(2 < 3) | false", "1 < 2 == true | true", "true == 1 < 2 | true",
      "1 == 1 && 2 == 3 | false", "true || false && false | true", "(true || false) && false | false",
      "false && false || true | true", "'a' == 'a' && 'b' | true"})
  void precedence(String expr, String truth) {
    assertThat(eval(expr).truth()).hasToString(truth);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      "github.event_name | 'pull_request'", "GitHub.Event_Name | 'pull_request'",
      "github['event_name'] | 'pull_request'", "github['EVENT_NAME'] | 'pull_request'",
      "github.event.pull_request.labels.*.name | [ \"run-ci-gpu\", \"Bypass-FastFail\" ]",
      "github.event.pull_request.labels[*].name | [ \"run-ci-gpu\", \"Bypass-FastFail\" ]",
      "obj.*.v | [ 1, 2 ]", "obj.*.w | [ 3 ]", "obj.*.none | []", "arr[1] | 'b'", "arr['1'] | 'b'", "arr[3] | null",
      "arr[-1] | null", "obj.k1.v | 1", "obj.nothing.v | null", "arr.name | null", "'text'.length | null",
      "github.event.pull_request.labels[0].name | 'run-ci-gpu'", "arr.* | [ \"a\", \"b\", \"c\" ]"})
  void propertyAccessAndFilters(String expr, String shown) {
    assertThat(show(eval(expr))).isEqualTo(shown);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      "contains('Hello world', 'WORLD') | true", "contains('Hello', 'x') | false",
      "contains(github.event.pull_request.labels.*.name, 'bypass-fastfail') | true",
      "contains(github.event.pull_request.labels.*.name, 'run-ci') | false", "contains(fromJSON('[1, 2]'), '2') | true",
      "contains(123, 2) | true", "contains(null, '') | true",
      "startsWith('Hello world', 'he') | true", "startsWith('Hello', 'lo') | false",
      "endsWith('Hello world', 'WORLD') | true", "endsWith('a', 'ab') | false",
      "format('{0} and {1}', 'a', 1) | 'a and 1'", "format('{{0}} is {0}', 'x') | '{0} is x'",
      "format('{1}{0}{1}', 'a', 'b') | 'bab'", "format('}}{{') | '}{'",
      "format('{0}|{1}|{2}|{3}', null, true, 0.5, 1.0) | '|true|0.5|1'",
      "join(fromJSON('[1, \"x\", true, null]')) | '1,x,true,'", "join(arr, ' + ') | 'a + b + c'", "join('abc', '-') | 'abc'",
      "join(obj.*.v, '') | '12'", "toJSON('x') | '\"x\"'", "toJSON(1e25) | '1e+25'", "toJSON(fromJSON('[]')) | '[]'",
      "fromJSON('1.5') | 1.5", "fromJSON('\"s\"') | 's'", "fromJSON('null') | null", "fromJSON(' true ') | true",
      "fromJSON('{\"a\": {\"b\": [1]}}').a.b[0] | 1", "format('{0}', fromJSON('[]')) | 'Array'",
      "format('{0}', obj) | 'Object'", "CONTAINS('ab', 'B') | true"})
  void functions(String expr, String shown) {
    assertThat(show(eval(expr))).isEqualTo(shown);
  }

  @Test
  void toJsonIndentsTwoSpaces() {
    assertThat(eval("toJSON(fromJSON('{\"a\":[1,true,null],\"b\":{}}'))"))
        .isEqualTo(new Str("{\n  \"a\": [\n    1,\n    true,\n    null\n  ],\n  \"b\": {}\n}"));
  }

  @Test
  void evaluationErrorsAreLocatedExpressionErrors() {
    assertThatThrownBy(() -> eval("true && format('{1}', 'a')"))
        .isInstanceOf(InvalidExpressionException.class)
        .hasMessage("expression 'true && format('{1}', 'a')' column 9: format() placeholder {1} but only 1 argument"
            + " after the format string");
    assertThatThrownBy(() -> eval("format('{x}', 'a')")).isInstanceOf(InvalidExpressionException.class)
        .hasMessageContaining("expected {N} or {{");
    assertThatThrownBy(() -> eval("format('a}b')")).isInstanceOf(InvalidExpressionException.class)
        .hasMessageContaining("lone '}'");
    assertThatThrownBy(() -> eval("fromJSON('{oops')")).isInstanceOf(InvalidExpressionException.class)
        .hasMessageContaining("column 1: fromJSON() got text that is not JSON");
    assertThatThrownBy(() -> eval("fromJSON('[1,]')")).isInstanceOf(InvalidExpressionException.class);
    assertThatThrownBy(() -> eval("fromJSON('01')")).isInstanceOf(InvalidExpressionException.class);
  }

  @Test
  void unknownPropagatesThreeValued() {
    assertThat(eval("vars.RUN_GPU")).isEqualTo(new Unknown("vars.RUN_GPU", Tri.UNKNOWN));
    assertThat(eval("false && vars.RUN_GPU")).isEqualTo(new Bool(false));
    assertThat(eval("true && vars.RUN_GPU").truth()).isEqualTo(Tri.UNKNOWN);
    assertThat(eval("vars.RUN_GPU && false").truth()).isEqualTo(Tri.FALSE);
    assertThat(eval("vars.RUN_GPU && true").truth()).isEqualTo(Tri.UNKNOWN);
    assertThat(eval("true || vars.RUN_GPU")).isEqualTo(new Bool(true));
    assertThat(eval("false || vars.RUN_GPU").truth()).isEqualTo(Tri.UNKNOWN);
    assertThat(eval("vars.RUN_GPU || true").truth()).isEqualTo(Tri.TRUE);
    assertThat(eval("!(vars.RUN_GPU || true)")).isEqualTo(new Bool(false));
    assertThat(eval("vars.RUN_GPU == vars.RUN_GPU").truth()).isEqualTo(Tri.UNKNOWN);
    assertThat(eval("vars.RUN_GPU == 'true'")).isEqualTo(new Unknown("vars.RUN_GPU", Tri.UNKNOWN));
    assertThat(eval("!vars.RUN_GPU").truth()).isEqualTo(Tri.UNKNOWN);
    assertThat(eval("contains(secrets.TOKEN, 'x')")).isEqualTo(new Unknown("secrets.TOKEN", Tri.UNKNOWN));
    assertThat(eval("vars.A.b.c")).isEqualTo(new Unknown("vars.A.b.c", Tri.UNKNOWN));
    assertThat(eval("fromJSON(vars.LIST)[0]").truth()).isEqualTo(Tri.UNKNOWN);
    assertThat(eval("hashFiles('**/x')").truth()).isEqualTo(Tri.UNKNOWN);
    // an unknown never throws, even where a known value would: the text is not known to be bad JSON
    assertThat(eval("fromJSON(vars.X)").truth()).isEqualTo(Tri.UNKNOWN);
  }

  @Test
  void openContextsAreUnknownWhereTheyAreNotGiven() {
    ExprValue github = new ExprValue.Obj(Map.of("event_name", new Str("push")), true, "github");
    ExpressionEnvironment e = new ExpressionEnvironment() {
      @Override
      public ExprValue context(String name) {
        return name.equals("github") ? github : new Unknown(name, Tri.UNKNOWN);
      }

      @Override
      public StatusCheck status(StatusFunction function) {
        return new StatusCheck(Tri.TRUE, "test");
      }
    };
    assertThat(Expression.parse("github.ref").evaluate(e)).isEqualTo(new Unknown("github.ref", Tri.UNKNOWN));
    assertThat(Expression.parse("github.event_name == 'PUSH'").evaluate(e)).isEqualTo(new Bool(true));
  }

  @Test
  void theVerdictNamesTheDecidingTerm() {
    Expression.Verdict v = Expression.parse("github.event_name == 'push' || vars.RUN == 'yes'").decide(env(CONTEXTS));
    assertThat(v.truth()).isEqualTo(Tri.UNKNOWN);
    assertThat(v.explanation()).isEqualTo("`vars.RUN == 'yes'` is unknown (vars.RUN is not known to the simulation)");
    Expression.Verdict f = Expression.parse("success() && github.event_name == 'push'").decide(env(CONTEXTS));
    assertThat(f.truth()).isEqualTo(Tri.FALSE);
    assertThat(f.explanation()).isEqualTo("`github.event_name == 'push'` is false (github.event_name is 'pull_request')");
    Expression.Verdict n = Expression.parse("!success()").decide(env(CONTEXTS));
    assertThat(n.explanation()).isEqualTo("`!success()` is false (success() is true: test)");
  }

  @Test
  void conditionsAndTemplates() {
    assertThat(Expression.parseCondition("${{ github.event_name == 'pull_request' }}").evaluate(env(CONTEXTS)))
        .isEqualTo(new Bool(true));
    assertThat(Expression.parseCondition("  ${{ false }}  ").evaluate(env(CONTEXTS))).isEqualTo(new Bool(false));
    // text around ${{ }} makes a string template: always truthy when not empty
    assertThat(Expression.parseCondition("${{ false }} && false").evaluate(env(CONTEXTS)))
        .isEqualTo(new Str("false && false"));
    assertThat(Expression.parseTemplate("v=${{ obj.k1.v }}, ${{ 'x' }}").evaluate(env(CONTEXTS))).isEqualTo(new Str("v=1, x"));
    assertThat(Expression.parseTemplate("${{ '}}' }}").evaluate(env(CONTEXTS))).isEqualTo(new Str("}}"));
    assertThatThrownBy(() -> Expression.parseTemplate("a ${{ b")).isInstanceOf(InvalidExpressionException.class)
        .hasMessage("expression 'a ${{ b' column 3: '${{' is not closed; expected '}}'");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      "success() | true", "!success() | true", "always() | true", "github.event_name == 'push' && !cancelled() | true",
      "contains(format('{0}', failure()), 'x') | true", "github.event_name == 'push' | false", "'success()' | false",
      "needs.a.result == 'failure' | false", "format('{0}', 'always()') | false"})
  void statusFunctionsAreFoundAnywhere(String expr, boolean calls) {
    assertThat(Expression.parse(expr).callsStatusFunction()).isEqualTo(calls);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiterString = " | ", quoteCharacter = '`', value = {
      "1 == | 5 | unexpected end of expression; expected a literal, a context, a function call, '!' or '('",
      "\"x\" | 1 | a double quote; expected a string in single quotes ('...')",
      "'abc | 1 | unterminated string; expected a closing ' (write '' for a quote inside)",
      "foo(1) | 1 | unknown function 'foo'; expected one of contains, startsWith, endsWith, format, join, toJSON, fromJSON, hashFiles, success, failure, cancelled, always",
      "contains(1) | 1 | contains() takes 2 arguments, got 1",
      "success(1) | 1 | success() takes 0 arguments, got 1",
      "join() | 1 | join() takes 1 to 2 arguments, got 0",
      "a. | 3 | unexpected end of expression after '.'; expected a property name or '*'",
      "a.'x' | 3 | unexpected ''x'' after '.'; expected a property name or '*'",
      "(1 | 3 | unexpected end of expression; expected ')' closing the '(' at column 1",
      "1 2 | 3 | unexpected '2'; expected an operator or the end of the expression",
      "a[1 | 4 | unexpected end of expression; expected ']' closing the index",
      "a = b | 3 | unexpected character '='; expected a literal, a context, a function or an operator",
      "12abc | 1 | '12abc' is not a number; expected a decimal (with optional exponent) or 0x hex number",
      "0xZZ | 1 | '0xZZ' is not a number; expected a decimal (with optional exponent) or 0x hex number",
      "format('a' 'b') | 12 | unexpected ''b''; expected ',' or ')' in the arguments of format()",
      "&& true | 1 | unexpected '&&'; expected a literal, a context, a function call, '!' or '('"})
  void syntaxErrorsAreLocated(String expr, int column, String problem) {
    String text = expr;
    assertThatThrownBy(() -> Expression.parse(text))
        .isInstanceOfSatisfying(InvalidExpressionException.class, e -> {
          assertThat(e.column()).isEqualTo(column);
          assertThat(e.expression()).isEqualTo(text);
          assertThat(e.getMessage()).isEqualTo("expression '" + text + "' column " + column + ": " + problem);
        });
  }

  @Test
  void anEmptyExpressionIsAnError() {
    assertThatThrownBy(() -> Expression.parse("  ")).isInstanceOf(InvalidExpressionException.class)
        .hasMessage("expression '  ' column 3: unexpected end of expression; expected a literal, a context, a function"
            + " call, '!' or '('");
  }

  @Test
  void conditionErrorsAreColumnsInTheWholeIf() {
    assertThatThrownBy(() -> Expression.parseCondition("${{ a == }}"))
        .isInstanceOfSatisfying(InvalidExpressionException.class, e -> assertThat(e.column()).isEqualTo(10));
  }

  @Test
  void deepNestingIsAnErrorNotAStackOverflow() {
    String deep = "(".repeat(10_000) + "1" + ")".repeat(10_000);
    assertThatThrownBy(() -> Expression.parse(deep)).isInstanceOf(InvalidExpressionException.class)
        .hasMessageContaining("nested deeper than 50 levels");
    assertThatThrownBy(() -> Expression.parse("!".repeat(10_000) + "1")).isInstanceOf(InvalidExpressionException.class);
    assertThat(eval("(".repeat(40) + "1" + ")".repeat(40))).isEqualTo(new Num(1));
  }

  @Test
  void multiLineInputGivesASingleLineMessage() {
    assertThatThrownBy(() -> Expression.parse("true &&\n  &&")).isInstanceOf(InvalidExpressionException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").contains("column 11"));
  }

  @Test
  void filteredArraysAreArrays() {
    assertThat(eval("obj.*")).isInstanceOfSatisfying(Arr.class, a -> assertThat(a.items()).hasSize(3));
  }
}

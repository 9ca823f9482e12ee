package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.InvalidGateException;
import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.api.RegistrationException;
import dev.cipolicy.core.ReferencePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.quicktheories.generators.Generate;

/**
 * The bounds of every document the loaders read: YAML number forms, aliases, document size, line length.
 * Each case goes through every loader (policy, registrations, gate declarations) that has such a field.
 */
class DocumentLimitsTest {
  private static final String POLICY = ReferencePolicy.text();
  private static final String REGISTRATIONS = read();

  private static String read() {
    try {
      return Files.readString(ReferencePolicy.registrationsPath());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A number written in one of YAML's forms that the documents do not accept. */
  static final List<String> HOSTILE_NUMBERS = List.of(".nan", ".NaN", ".inf", "-.inf", "+.inf", "1_000", "0x10",
      "0o17", "0b101", "+5", "017", "00", "-01", "190:20:30", "1__0", "0x_1", "+.5", "1.5e", "--1");

  private static CiPolicyException policyWith(String field, String value) {
    String doc = switch (field) {
      case "policy_version" -> POLICY.replace("policy_version: 1", "policy_version: " + value);
      case "shards" -> POLICY.replaceFirst("shards: 4", "shards: " + value);
      case "gpu_max_parallel" -> POLICY.replaceFirst("gpu_max_parallel: 1", "gpu_max_parallel: " + value);
      case "rel_up" -> POLICY.replaceFirst("rel_up: \\.5", "rel_up: " + value);
      default -> throw new AssertionError(field);
    };
    assertThat(doc).isNotEqualTo(POLICY);
    return expectThrows(InvalidPolicyException.class, () -> PolicyLoader.load("x.yaml", doc));
  }

  private static CiPolicyException registrationsWith(String value) {
    String doc = REGISTRATIONS.replaceFirst("est_time: 30}", "est_time: " + value + "}");
    assertThat(doc).isNotEqualTo(REGISTRATIONS);
    return expectThrows(RegistrationException.class,
        () -> RegistrationLoader.load("r.yaml", doc, ReferencePolicy.resolver()));
  }

  private static CiPolicyException gatesWith(String value) {
    String doc = "tests/e2e/test_x.py:\n  - metric_key: train/grad_norm\n    steps: [0, 1]\n"
        + "    constraint: {rel_up: " + value + ", abs_floor_up: .1, rel_down: .8, abs_floor_down: .1}\n"
        + "    better: lower\n";
    return expectThrows(InvalidGateException.class, () -> GateDeclarationsLoader.load("g.yaml", doc));
  }

  private static CiPolicyException expectThrows(Class<? extends CiPolicyException> type, Runnable load) {
    try {
      load.run();
    } catch (CiPolicyException e) {
      assertThat(e).isInstanceOf(type);
      assertThat(e.getMessage()).doesNotContain("\n");
      return e;
    }
    throw new AssertionError("expected " + type.getSimpleName());
  }

  @Nested
  class Numbers {
    @ParameterizedTest
    @ValueSource(strings = {"policy_version", "shards", "gpu_max_parallel"})
    void integerFieldsRejectEveryNonDecimalFormWithALocatedMessage(String field) {
      for (String v : HOSTILE_NUMBERS) {
        String message = policyWith(field, v).getMessage();
        assertThat(message).as(v).contains("x.yaml:").contains(field + ": ")
            .contains(" is not a decimal number (expected an integer in plain decimal such as 30 or -2;");
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e3", "1.5", ".5", "1e999"})
    void integerFieldsRejectDecimals(String v) {
      assertThat(policyWith("shards", v).getMessage()).contains("expected an integer, found a number (" + v + ")");
    }

    @Test
    void theExactMessage() {
      int line = POLICY.substring(0, POLICY.indexOf("shards: 4")).split("\n", -1).length;
      assertThat(policyWith("shards", "0x10").getMessage()).isEqualTo("Invalid CI policy: x.yaml:" + line + ":17:"
          + " backends.cpu.suites.stage-a-cpu.shards: 0x10 is not a decimal number (expected an integer"
          + " in plain decimal such as 30 or -2; YAML forms such as 0x10, 0o17, 1_000, +5, 017, .inf and .nan"
          + " are not accepted)");
    }

    @Test
    void numberFieldsRejectEveryNonDecimalFormInEveryLoader() {
      for (String v : HOSTILE_NUMBERS) {
        for (Function<String, CiPolicyException> load : List.<Function<String, CiPolicyException>>of(
            x -> policyWith("rel_up", x), DocumentLimitsTest::registrationsWith, DocumentLimitsTest::gatesWith)) {
          assertThat(load.apply(v).getMessage()).as(v)
              .contains(" is not a decimal number (expected a number in plain decimal such as 30, 1.5, .5 or 1e3;");
        }
      }
    }

    @Test
    void anOverflowingDecimalIsNotFinite() {
      assertThat(registrationsWith("1e999").getMessage()).contains("[0].est_time: test file 'tests/fast/test_ci_policy.py': number 1e999 is not finite");
    }

    @ParameterizedTest
    @ValueSource(strings = {"30", "0", "1.5", ".5", "5.", "1e3", "1E+3", "2.5e-1", "0.25"})
    void plainDecimalsAreNumbers(String v) {
      String doc = REGISTRATIONS.replaceFirst("est_time: 30}", "est_time: " + v + "}");
      assertThat(RegistrationLoader.load("r.yaml", doc, ReferencePolicy.resolver()).registrations().get(0)
          .estTimeSeconds()).isEqualTo(Double.parseDouble(v));
    }

    @Test
    void aQuotedNumberIsStillAString() {
      assertThat(registrationsWith("\"30\"").getMessage()).contains("expected a number, found a string");
    }

    @Test
    void decimalGrammarAgreesWithItsDefinition() {
      java.util.regex.Pattern integer = java.util.regex.Pattern.compile("-?(0|[1-9][0-9]*)");
      java.util.regex.Pattern number = java.util.regex.Pattern.compile(
          "-?((0|[1-9][0-9]*)(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");
      qt().withExamples(20_000)
          .forAll(strings().betweenCodePoints('+', 'e').ofLengthBetween(0, 8))
          .checkAssert(s -> {
            assertThat(DocReader.isDecimalInteger(s)).as(s).isEqualTo(integer.matcher(s).matches());
            assertThat(DocReader.isDecimalNumber(s)).as(s).isEqualTo(number.matcher(s).matches());
          });
    }

    @Test
    void arbitraryScalarsInNumberFieldsNeverThrowAnythingButOurs() {
      List<String> pieces = List.of("0", "1", "9", ".", "_", "x", "o", "b", "e", "E", "+", "-", ":", "inf", "nan",
          "'", "\"", " ", "#", "[", "{", "&a", "*a", "!!int ", "!!float ");
      qt().withExamples(150)
          .forAll(lists().of(Generate.pick(pieces)).ofSizeBetween(1, 6))
          .checkAssert(parts -> {
            String v = String.join("", parts);
            try {
              RegistrationLoader.load("r.yaml", REGISTRATIONS.replaceFirst("est_time: 30}",
                  java.util.regex.Matcher.quoteReplacement("est_time: " + v + "}")), ReferencePolicy.resolver());
            } catch (CiPolicyException e) {
              assertThat(e.getMessage()).doesNotContain("\n");
            }
            try {
              PolicyLoader.load("x.yaml", POLICY.replaceFirst("shards: 4",
                  java.util.regex.Matcher.quoteReplacement("shards: " + v)));
            } catch (CiPolicyException e) {
              assertThat(e.getMessage()).doesNotContain("\n");
            }
          });
    }
  }

  @Nested
  class Messages {
    @Test
    void aLineBreakInAKeyIsEscapedNotPrinted() {
      CiPolicyException e = expectThrows(InvalidPolicyException.class,
          () -> PolicyLoader.load("x.json", "{\"name\": \"x\", \"write_\\nbaseline\\r::error::forged\": 1}"));
      assertThat(e.getMessage()).contains("unknown field 'write_\\nbaseline\\r::error::forged'");
    }

    @Test
    void aLineBreakInACronIsEscapedNotPrinted() {
      String doc = POLICY.replaceFirst("cron: \"([^\"]*)\"", "cron: \"$1\\\\n::error::x\"");
      assertThat(doc).isNotEqualTo(POLICY);
      assertThat(expectThrows(InvalidPolicyException.class, () -> PolicyLoader.load("x.yaml", doc)).getMessage())
          .contains("\\u000a::error::x");
    }
  }

  @Nested
  class Aliases {
    @Test
    void anAliasIsRejectedWhereItStandsNotReadAsTheAnchorName() {
      String doc = POLICY.replaceFirst("cadence: regular", "cadence: &weekly nightly")
          .replaceFirst("cadence: nightly", "cadence: *weekly");
      assertThat(doc).contains("*weekly");
      CiPolicyException e = expectThrows(InvalidPolicyException.class, () -> PolicyLoader.load("x.yaml", doc));
      assertThat(e.getMessage()).contains("YAML alias *weekly is not supported").matches(".*x\\.yaml:\\d+:\\d+: .*");
    }

    @Test
    void aBillionLaughsDocumentFailsAtItsFirstAlias() {
      StringBuilder sb = new StringBuilder("name: lol\nlabels:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
      for (char c = 'b'; c <= 'j'; c++) {
        char p = (char) (c - 1);
        sb.append("  ").append(c).append(": &").append(c).append(" [*").append(p).append(",*").append(p)
            .append(",*").append(p).append(",*").append(p).append(",*").append(p).append("]\n");
      }
      long t0 = System.nanoTime();
      CiPolicyException e = expectThrows(InvalidPolicyException.class,
          () -> PolicyLoader.load("lol.yaml", sb.toString()));
      assertThat(e.getMessage()).contains("lol.yaml:4:").contains("YAML alias *a is not supported");
      assertThat(System.nanoTime() - t0).as("generous bound against expansion").isLessThan(10_000_000_000L);
    }

    @Test
    void aMergeKeyIsRejected() {
      String doc = "- &base {file: tests/fast/test_a.py, backend: cpu, suite: stage-a-cpu, est_time: 1}\n"
          + "- {<<: *base, file: tests/fast/test_b.py}\n";
      assertThat(expectThrows(RegistrationException.class,
          () -> RegistrationLoader.load("r.yaml", doc, ReferencePolicy.resolver())).getMessage())
          .contains("r.yaml:2:").contains("merge key '<<' is not supported");
    }

    @Test
    void anAnchorWithoutAliasChangesNothing() {
      String doc = POLICY.replaceFirst("cadence: regular", "cadence: &r regular");
      assertThat(PolicyLoader.load("x.yaml", doc).policy()).isEqualTo(PolicyLoader.load("x.yaml", POLICY).policy());
    }
  }

  @Nested
  class Size {
    @Test
    void aTenMegabyteCommentLineFailsFast() {
      String doc = POLICY + "# " + "x".repeat(10_000_000) + "\n";
      long t0 = System.nanoTime();
      CiPolicyException e = expectThrows(InvalidPolicyException.class, () -> PolicyLoader.load("x.yaml", doc));
      assertThat(e.getMessage()).contains("x.yaml:1:1: the document is " + doc.length() + " characters long")
          .contains("at most 4194304 are accepted");
      assertThat(System.nanoTime() - t0).as("generous bound (it took 44 s)").isLessThan(5_000_000_000L);
    }

    @Test
    void aLongYamlLineWithinTheSizeLimitFailsFastAtItsLine() {
      String doc = POLICY + "# " + "x".repeat(3_000_000) + "\n";
      long t0 = System.nanoTime();
      CiPolicyException e = expectThrows(InvalidPolicyException.class, () -> PolicyLoader.load("x.yaml", doc));
      int line = (int) POLICY.lines().count() + 1;
      assertThat(e.getMessage()).contains("x.yaml:" + line + ":1: the line is 3000002 characters long;"
          + " YAML lines are limited to 65536 characters");
      assertThat(System.nanoTime() - t0).as("generous bound").isLessThan(5_000_000_000L);
    }

    @Test
    void aLongJsonLineIsFine() {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < 5_000; i++) {
        sb.append(i == 0 ? "" : ",").append("{\"file\": \"tests/fast/test_").append(i)
            .append(".py\", \"backend\": \"cpu\", \"suite\": \"stage-a-cpu\", \"est_time\": 1}");
      }
      String doc = sb.append("]").toString();
      assertThat(doc.length()).isGreaterThan(DocumentLimits.MAX_YAML_LINE_CHARS);
      assertThat(RegistrationLoader.load("r.json", doc, ReferencePolicy.resolver()).registrations()).hasSize(5_000);
    }

    @Test
    void aLargeRegistrationsManifestWithinTheLimitLoads() {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 10_000; i++) {
        sb.append("- {file: tests/fast/test_").append(i).append(".py, backend: cpu, suite: stage-a-cpu, est_time: ")
            .append(i % 97 + 1).append("}\n");
      }
      assertThat(sb.length()).isLessThan(DocumentLimits.MAX_DOCUMENT_CHARS);
      long t0 = System.nanoTime();
      assertThat(RegistrationLoader.load("r.yaml", sb.toString(), ReferencePolicy.resolver()).registrations())
          .hasSize(10_000);
      assertThat(System.nanoTime() - t0).as("generous bound").isLessThan(20_000_000_000L);
    }

    @Test
    void everyLoaderChecksTheSize() {
      String big = " ".repeat(DocumentLimits.MAX_DOCUMENT_CHARS + 1);
      assertThatThrownBy(() -> RegistrationLoader.load("r.json", big, ReferencePolicy.resolver()))
          .isInstanceOf(RegistrationException.class).hasMessageContaining("at most 4194304 are accepted");
      assertThatThrownBy(() -> GateDeclarationsLoader.load("g.yaml", big))
          .isInstanceOf(InvalidGateException.class).hasMessageContaining("at most 4194304 are accepted");
      assertThatThrownBy(() -> PolicyLoader.load("p.json", big))
          .isInstanceOf(InvalidPolicyException.class).hasMessageContaining("at most 4194304 are accepted");
    }
  }
}

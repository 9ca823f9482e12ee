package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cipolicy.api.CanonicalJson;
import dev.cipolicy.api.run.RunPolicy;
import dev.cipolicy.core.PolicyResolver;
import dev.cipolicy.core.load.PolicyLoader;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The GitHub formats of the CLI: PR-label decoding, the output lines, the log line and compact arrays. */
class GithubFormatsTest {
  private static final PolicyResolver RESOLVER = resolver();

  private static PolicyResolver resolver() {
    try {
      return PolicyLoader.load("miles.yaml", Files.readString(CliTestSupport.REPO.resolve(CliTestSupport.POLICY)))
          .resolver();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void writesExactlyFourLinesInOrder() {
    RunPolicy p = RESOLVER.resolveCadence("regular", List.of("run-ci-megatron", "bypass-fastfail"));
    assertThat(GithubFormats.outputLines(p, List.of("stage-c-8-gpu-h100", "stage-b-2-gpu-h200")))
        .isEqualTo("cadence=regular\nraw_labels=run-ci-megatron bypass-fastfail\nbypass_fastfail=true\n"
            + "skipped_stages=[\"stage-b-2-gpu-h200\",\"stage-c-8-gpu-h100\"]\n");
  }

  @Test
  void emptyLabelsAndStages() {
    RunPolicy p = RESOLVER.resolveCadence("weekly", List.of());
    assertThat(GithubFormats.outputLines(p, List.of()))
        .isEqualTo("cadence=weekly\nraw_labels=\nbypass_fastfail=true\nskipped_stages=[]\n");
    assertThat(GithubFormats.summaryLine(p, List.of()))
        .isEqualTo("Resolved CI policy: cadence=weekly labels=[] bypass_fastfail=true skipped_stages=[]");
  }

  @Test
  void arraysAreCompactWithShortEscapesAndLowercaseHex() {
    assertThat(GithubFormats.array(List.of("gpu", "a\"b\\c", "t\tn\nr\rb\bf\f", "\u0001\u001b\u007f", "é/")))
        .isEqualTo("[\"gpu\",\"a\\\"b\\\\c\",\"t\\tn\\nr\\rb\\bf\\f\",\"\\u0001\\u001b\u007f\",\"é/\"]");
    assertThat(GithubFormats.sortedArray(List.of("b", "a", "b"))).isEqualTo("[\"a\",\"b\"]");
  }

  @Test
  void arraysAreTheTextOfTheLibrarysCanonicalJsonForEveryCharacter() {
    for (int c = 0; c <= Character.MAX_VALUE; c++) {
      List<String> items = List.of("x" + (char) c + "y", String.valueOf((char) c));
      assertThat(GithubFormats.array(items)).as("character %04x", c).isEqualTo(CanonicalJson.write(items));
    }
  }

  @Test
  void decodesAJsonStringArrayInOrderWithDuplicatesAndEscapes() {
    assertThat(GithubFormats.prLabels(" [ \"run-ci-x\" , \"\\u0041\\n\", \"run-ci-x\", \"\\/\" ] "))
        .containsExactly("run-ci-x", "A\n", "run-ci-x", "/");
    assertThat(GithubFormats.prLabels("[]")).isEmpty();
  }

  @Test
  void roundTripsAnyListOfStrings() {
    ObjectMapper jackson = new ObjectMapper();
    qt().forAll(lists().of(strings().allPossible().ofLengthBetween(0, 8)).ofSizeBetween(0, 6))
        .checkAssert(list -> {
          try {
            assertThat(GithubFormats.prLabels(jackson.writeValueAsString(list))).isEqualTo(list);
            assertThat(GithubFormats.prLabels(GithubFormats.array(list))).isEqualTo(list);
          } catch (JsonProcessingException e) {
            throw new AssertionError(e);
          }
        });
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"''", "{}", "[1]", "[\"a\",]", "null", "[\"a\"] x", "[\"a\" \"b\"]",
      "'[\"a\\q\"]'", "\"a\"", "[[\"a\"]]", "[\"a\"][]", "'[\"a\u0001\"]'", "[\"a\"", "['a']"})
  void prLabelsMustBeAJsonStringArray(String json) {
    assertThatThrownBy(() -> GithubFormats.prLabels(json))
        .isInstanceOf(Inputs.InputException.class)
        .hasMessage("PR labels were not a JSON string array");
  }

  @Test
  void anOutputValueWithALineBreakIsRefusedSoNoOtherOutputCanBeForged() {
    java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
    values.put("hw", "cuda");
    values.put("runs_on", "x\nsuite=forged");
    assertThatThrownBy(() -> GithubFormats.outputBlock(values)).isInstanceOf(Inputs.InputException.class)
        .hasMessage("cannot write output runs_on: the value contains a line break, which would forge another output;"
            + " nothing was written");
    values.put("runs_on", "x\rsuite=forged");
    assertThatThrownBy(() -> GithubFormats.outputBlock(values)).isInstanceOf(Inputs.InputException.class);
    values.put("runs_on", "[\"h200\",\"4gpu\"]");
    assertThat(GithubFormats.outputBlock(values)).isEqualTo("hw=cuda\nruns_on=[\"h200\",\"4gpu\"]\n");
  }
}

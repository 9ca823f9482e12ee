package dev.cipolicy.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.generators.Generate;

/** The core's JSON string array parser agrees with Jackson on valid and mutated input. */
class JsonStringArrayProperties {
  private static final ObjectMapper JACKSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static Optional<List<String>> jackson(String text) {
    try {
      JsonNode node = JACKSON.readTree(text);
      if (node == null || !node.isArray()) {
        return Optional.empty();
      }
      List<String> out = new ArrayList<>();
      for (JsonNode n : node) {
        if (!n.isTextual()) {
          return Optional.empty();
        }
        out.add(n.textValue());
      }
      return Optional.of(out);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  @Test
  void roundTripsAnyListOfStrings() throws Exception {
    qt().forAll(lists().of(strings().allPossible().ofLengthBetween(0, 8)).ofSizeBetween(0, 6))
        .checkAssert(list -> {
          try {
            assertThat(JsonStringArray.parse(JACKSON.writeValueAsString(list))).contains(list);
          } catch (JsonProcessingException e) {
            throw new AssertionError(e);
          }
        });
  }

  @Test
  void agreesWithJacksonOnMutatedInput() {
    List<String> seeds = List.of("[]", "[\"a\"]", "[\"run-ci-x\", \"nightly\"]", " [ \"\\u0041\\n\" , \"\\\"\" ] ",
        "[\"a\",\"b\",\"c\"]");
    List<String> inserts = List.of("[", "]", ",", "\"", "\\", "u", "1", " ", "\n", "null", "{", "}", ":", "\u0001",
        "\\u12", "true", "/", "\\/");
    qt().withExamples(2000)
        .forAll(Generate.pick(seeds), integers().between(0, 40), Generate.pick(inserts), integers().between(0, 2))
        .checkAssert((seed, at, insert, mode) -> {
          int pos = Math.min(at, seed.length());
          String mutated = switch (mode) {
            case 0 -> seed.substring(0, pos) + insert + seed.substring(pos);
            case 1 -> pos < seed.length() ? seed.substring(0, pos) + seed.substring(pos + 1) : seed + insert;
            default -> pos < seed.length() ? seed.substring(0, pos) + insert + seed.substring(pos + 1) : insert;
          };
          assertThat(JsonStringArray.parse(mutated)).as("input %s", mutated).isEqualTo(jackson(mutated));
        });
  }
}

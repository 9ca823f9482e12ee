package dev.cipolicy.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import dev.cipolicy.api.InvalidPolicyException;
import dev.cipolicy.core.ReferencePolicy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.generators.Generate;

/** Mutated policy documents either load or fail with our exception and a located problem. */
class PolicyLoaderFuzzProperties {
  private static final String TEXT = ReferencePolicy.text();
  private static final List<String> INSERTS = List.of(":", "-", "[", "]", "{", "}", "\"", "'", "\n", "  ", "#", "&a",
      "*a", "!!int ", "? ", "|", ">", "null", "1", "true", "\t", "\u0000", "\uFFFF", "%", "@", "`", ",");

  @Test
  void mutatedDocumentsNeverThrowAnythingButInvalidPolicyException() {
    qt().withExamples(250)
        .forAll(integers().between(0, TEXT.length() - 1), Generate.pick(INSERTS), integers().between(0, 2),
            integers().between(1, 40))
        .checkAssert((pos, insert, mode, span) -> {
          int end = Math.min(TEXT.length(), pos + span);
          String doc = switch (mode) {
            case 0 -> TEXT.substring(0, pos) + insert + TEXT.substring(pos);
            case 1 -> TEXT.substring(0, pos) + TEXT.substring(end);
            default -> TEXT.substring(0, pos) + insert + TEXT.substring(end);
          };
          for (String name : List.of("fuzz.yaml", "fuzz.json")) {
            try {
              PolicyLoader.load(name, doc);
            } catch (InvalidPolicyException e) {
              assertThat(e.problems()).isNotEmpty();
              assertThat(e.getMessage()).startsWith("Invalid CI policy");
            }
          }
        });
  }
}

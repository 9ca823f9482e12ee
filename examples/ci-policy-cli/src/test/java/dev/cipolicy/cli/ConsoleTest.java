package dev.cipolicy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The escaping rules of the one printer. */
class ConsoleTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final Console console = new Console(new PrintStream(out, true, StandardCharsets.UTF_8),
      new PrintStream(err, true, StandardCharsets.UTF_8));

  @Test
  void workflowCommandDataIsEscapedTheWayTheRunnerUnescapesIt() {
    console.error("bad\nvalue\r::set-output name=x::y 100%");
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("::error::bad%0Avalue%0D::set-output name=x::y 100%25\n");
  }

  @Test
  void propertiesAlsoEscapeColonAndComma() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("file", "a:b,c\nd%");
    props.put("line", "3");
    assertThat(Console.commandLine("error", props, "m")).isEqualTo("::error file=a%3Ab%2Cc%0Ad%25,line=3::m");
  }

  @Test
  void plainLinesAreSingleLineAndHoldNoCommandMarker() {
    console.line("Policy x\n::error::forged\r\u0000 ##[warning]y \u2028 a:b 100%");
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo("Policy x\\n:\u200b:error:\u200b:forged\\r\\u0000 #\u200b#[warning]y \\u2028 a:b 100%\n");
  }

  @Test
  void benignTextIsPrintedAsItIs() {
    String text = "  run  tests/e2e/test_lora.py (timeout 1800 s)\tstage-c: 4 % ok #2511 [x]";
    assertThat(Console.plain(text)).isEqualTo(text);
    assertThat(Console.escapeData(text)).isEqualTo(text.replace("%", "%25"));
  }

  @Test
  void jsonKeepsItsValueButLosesTheLegacyMarker() {
    console.json("{\n  \"a\" : \"##[error]x\"\n}");
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("{\n  \"a\" : \"#\\u0023[error]x\"\n}\n");
  }

  @Test
  void picocliOutputGoesThroughThePlainRule() {
    PrintWriter w = console.plainWriter(false);
    w.print("Usage: x\r\n::warning::y\n");
    w.flush();
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("Usage: x\n:\u200b:warning:\u200b:y\n");
  }
}

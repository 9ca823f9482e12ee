package dev.cipolicy.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Whatever the text, truncation gives valid UTF-8 within the limit, made of whole lines of the text. */
class MarkdownLimitProperties {
  /** Lines of table rows, headers, details tags and arbitrary text with characters from every plane. */
  private static Gen<String> line() {
    Gen<String> text = strings().betweenCodePoints(0x20, 0x10FFFF).ofLengthBetween(0, 120)
        .map(s -> s.codePoints().filter(cp -> cp != '\n' && !(cp >= 0xD800 && cp <= 0xDFFF))
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString());
    return Generate.pick(List.of(0, 1, 2, 3, 4, 5)).zip(text, (kind, t) -> switch (kind) {
      case 0 -> "| " + t + " | x |";
      case 1 -> "|---|---:|";
      case 2 -> "<details><summary>" + t + "</summary>";
      case 3 -> "</details>";
      case 4 -> "";
      default -> t;
    });
  }

  @Test
  void truncationIsValidUtf8WithinTheLimitAndKeepsWholeLines() {
    qt().withExamples(200).forAll(lists().of(line()).ofSizeBetween(0, 100), integers().between(256, 4000),
        Generate.booleans())
        .checkAssert((lines, max, bytes) -> {
          String text = String.join("\n", lines) + "\n";
          MarkdownLimit limit = new MarkdownLimit(max, bytes ? MarkdownLimit.Unit.UTF8_BYTES
              : MarkdownLimit.Unit.CHARS);
          String cut = limit.truncate(text);
          byte[] utf8 = cut.getBytes(StandardCharsets.UTF_8);
          assertThat(bytes ? utf8.length : cut.length()).isLessThanOrEqualTo(max);
          try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(utf8));
          } catch (CharacterCodingException e) {
            throw new AssertionError("not valid UTF-8: " + e, e);
          }
          if (!cut.equals(text)) {
            int note = cut.lastIndexOf("\n_… truncated: ");
            assertThat(note).isGreaterThanOrEqualTo(0);
            String body = cut.substring(0, note);
            while (body.endsWith("\n</details>\n\n")) { // the closing tags truncation added
              body = body.substring(0, body.length() - "\n</details>\n\n".length());
            }
            assertThat(text).startsWith(body); // a prefix of whole lines: no row or character is cut
            assertThat(body.isEmpty() || body.endsWith("\n") || text.charAt(body.length()) == '\n').isTrue();
          }
        });
  }
}

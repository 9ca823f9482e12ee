package dev.cipolicy.core.diff;

import dev.cipolicy.api.InvalidValueException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Examples of usable and unusable {@code git diff --name-status -z -M} output. */
class ChangedFilesTest {

  private static byte[] diff(String text) {
    return text.getBytes(UTF_8);
  }

  private static List<ChangeEntry> entries(String text) {
    DiffParse parse = ChangedFiles.parse(diff(text));
    assertThat(parse).isInstanceOf(DiffParse.Usable.class);
    return ((DiffParse.Usable) parse).entries();
  }

  private static String reason(byte[] bytes) {
    DiffParse parse = ChangedFiles.parse(bytes);
    assertThat(parse).isInstanceOf(DiffParse.Unusable.class);
    return ((DiffParse.Unusable) parse).reason();
  }

  private static String reason(String text) {
    return reason(diff(text));
  }

  @Nested
  class Usable {
    @Test
    void parsesEveryOneLetterStatus() {
      assertThat(entries("A\0new.py\0D\0gone.py\0M\0src/x.py\0T\0link\0U\0conflict\0X\0odd\0B\0broken\0"))
          .containsExactly(
              new ChangeEntry("A", List.of("new.py")),
              new ChangeEntry("D", List.of("gone.py")),
              new ChangeEntry("M", List.of("src/x.py")),
              new ChangeEntry("T", List.of("link")),
              new ChangeEntry("U", List.of("conflict")),
              new ChangeEntry("X", List.of("odd")),
              new ChangeEntry("B", List.of("broken")));
    }

    @Test
    void parsesRenamesAndCopiesWithOldThenNewPath() {
      List<ChangeEntry> entries = entries("R100\0old/a.py\0new/a.py\0C075\0tpl.yaml\0copy.yaml\0R5\0x\0y\0M\0z\0");
      assertThat(entries).containsExactly(
          new ChangeEntry("R100", List.of("old/a.py", "new/a.py")),
          new ChangeEntry("C075", List.of("tpl.yaml", "copy.yaml")),
          new ChangeEntry("R5", List.of("x", "y")),
          new ChangeEntry("M", List.of("z")));
      assertThat(entries).extracting(ChangeEntry::kind).containsExactly('R', 'C', 'R', 'M');
    }

    @Test
    void keepsNewlinesSpacesAndAnyOtherCharacterInPaths() {
      assertThat(entries("M\0dir with space/a\nb.txt\0R090\0 lead\ttab\0ünï/😀\r\0"))
          .containsExactly(
              new ChangeEntry("M", List.of("dir with space/a\nb.txt")),
              new ChangeEntry("R090", List.of(" lead\ttab", "ünï/😀\r")));
    }

    @Test
    void listsEveryPathIncludingBothEndsOfRenames() {
      DiffParse.Usable usable = (DiffParse.Usable) ChangedFiles.parse(diff("D\0tests/test_old.py\0R100\0a\0b\0M\0a\0"));
      assertThat(usable.paths()).containsExactly("tests/test_old.py", "a", "b", "a");
    }
  }

  @Nested
  class Unusable {
    @Test
    void empty() {
      assertThat(reason(new byte[0])).isEqualTo("the diff is empty");
    }

    @Test
    void notNulTerminated() {
      assertThat(reason("M\0a.py")).isEqualTo("the diff is not NUL-terminated");
      // Output without -z: one line per entry.
      assertThat(reason("M\ta.py\n")).isEqualTo("the diff is not NUL-terminated");
    }

    @Test
    void notUtf8() {
      byte[] bytes = {'M', 0, 'a', '/', (byte) 0xff, 'b', 0};
      assertThat(reason(bytes)).isEqualTo("the diff is not valid UTF-8 (byte offset 4)");
      // An encoded surrogate and an overlong encoding are malformed too.
      assertThat(reason(new byte[] {'M', 0, (byte) 0xed, (byte) 0xa0, (byte) 0x80, 0}))
          .isEqualTo("the diff is not valid UTF-8 (byte offset 2)");
      assertThat(reason(new byte[] {'A', 0, 'x', (byte) 0xc0, (byte) 0xaf, 0}))
          .isEqualTo("the diff is not valid UTF-8 (byte offset 3)");
      // A multi-byte sequence cut short by the final NUL.
      assertThat(reason(new byte[] {'A', 0, 'x', (byte) 0xe2, (byte) 0x82, 0}))
          .isEqualTo("the diff is not valid UTF-8 (byte offset 3)");
    }

    @Test
    void unknownStatus() {
      assertThat(reason("M\0a\0M\0b\0Q\0c\0")).isEqualTo("entry 3 has an unknown status 'Q'");
      assertThat(reason("R\0a\0b\0")).isEqualTo("entry 1 has an unknown status 'R'");
      assertThat(reason("R1000\0a\0b\0")).isEqualTo("entry 1 has an unknown status 'R1000'");
      assertThat(reason("M100\0a\0")).isEqualTo("entry 1 has an unknown status 'M100'");
      assertThat(reason("m\0a\0")).isEqualTo("entry 1 has an unknown status 'm'");
      assertThat(reason("R10x\0a\0b\0")).isEqualTo("entry 1 has an unknown status 'R10x'");
      assertThat(reason("M\ta.py\nM\tb.py\n\0")).isEqualTo("entry 1 has an unknown status 'M\\ta.py\\nM\\tb.py\\n'");
      assertThat(reason("x".repeat(50) + "\0a\0"))
          .isEqualTo("entry 1 has an unknown status '" + "x".repeat(40) + "...'");
    }

    @Test
    void emptyStatus() {
      assertThat(reason("\0a\0")).isEqualTo("entry 1 has an empty status");
      assertThat(reason("M\0a\0\0")).isEqualTo("entry 2 has an empty status");
    }

    @Test
    void missingPath() {
      assertThat(reason("M\0")).isEqualTo("entry 1 (M) is missing its path");
      assertThat(reason("M\0a\0R100\0")).isEqualTo("entry 2 (R100) is missing its old path");
      assertThat(reason("M\0a\0R100\0old\0")).isEqualTo("entry 2 (R100) is missing its new path");
      assertThat(reason("C050\0old\0")).isEqualTo("entry 1 (C050) is missing its new path");
    }

    @Test
    void emptyPath() {
      assertThat(reason("M\0\0")).isEqualTo("entry 1 (M) has an empty path");
      assertThat(reason("A\0x\0R100\0\0new\0")).isEqualTo("entry 2 (R100) has an empty old path");
      assertThat(reason("R100\0old\0\0")).isEqualTo("entry 1 (R100) has an empty new path");
    }
  }

  @Nested
  class Entries {
    @Test
    void rejectInvalidStatusesAndPathCounts() {
      assertThatThrownBy(() -> new ChangeEntry("Q", List.of("a"))).isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("got 'Q'");
      assertThatThrownBy(() -> new ChangeEntry("R100", List.of("a"))).isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("has 2 paths (old, new), got [a]");
      assertThatThrownBy(() -> new ChangeEntry("M", List.of("a", "b"))).isInstanceOf(InvalidValueException.class);
      assertThatThrownBy(() -> new ChangeEntry("M", List.of(""))).isInstanceOf(InvalidValueException.class);
      assertThatThrownBy(() -> new ChangeEntry("M", List.of("a\0b"))).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void copyTheirPaths() {
      List<String> paths = new ArrayList<>(List.of("a"));
      ChangeEntry entry = new ChangeEntry("M", paths);
      paths.set(0, "b");
      assertThat(entry.paths()).containsExactly("a");
      assertThat(new DiffParse.Usable(List.of(entry)).entries()).containsExactly(entry);
    }
  }
}

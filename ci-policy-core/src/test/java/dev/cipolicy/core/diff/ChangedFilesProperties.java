package dev.cipolicy.core.diff;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Serialized entries round-trip; mutated bytes never throw, and a usable parse is exact. */
class ChangedFilesProperties {

  private static byte[] serialize(List<ChangeEntry> entries) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (ChangeEntry entry : entries) {
      out.writeBytes(entry.status().getBytes(UTF_8));
      out.write(0);
      for (String path : entry.paths()) {
        out.writeBytes(path.getBytes(UTF_8));
        out.write(0);
      }
    }
    return out.toByteArray();
  }

  /** Code points other than NUL and surrogates, biased to path characters, newline and space. */
  private static Gen<String> path() {
    Gen<Integer> interesting = Generate.pick(List.of((int) 'a', (int) '/', (int) '.', (int) '\n', (int) ' ',
        (int) '\t', (int) '\\', (int) 'ü', 0x1F600, 0xFFFF, 0x7F, 1));
    Gen<Integer> any = integers().between(1, Character.MAX_CODE_POINT)
        .assuming(c -> c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE);
    return lists().of(interesting.mix(any, 30)).ofSizeBetween(1, 12).map(cps -> {
      StringBuilder sb = new StringBuilder();
      cps.forEach(sb::appendCodePoint);
      return sb.toString();
    });
  }

  private static Gen<String> status() {
    Gen<String> letter = Generate.pick(List.of("A", "D", "M", "T", "U", "X", "B"));
    Gen<String> scored = Generate.pick(List.of("R", "C")).zip(integers().between(0, 999), Generate.booleans(),
        (k, score, padded) -> k + (padded ? String.format("%03d", score) : Integer.toString(score)));
    return letter.mix(scored, 40);
  }

  private static Gen<ChangeEntry> entry() {
    return status().zip(path(), path(), (s, a, b) ->
        new ChangeEntry(s, ChangeEntry.hasTwoPaths(s) ? List.of(a, b) : List.of(a)));
  }

  private static Gen<List<ChangeEntry>> entries() {
    return lists().of(entry()).ofSizeBetween(1, 8);
  }

  @Test
  void anySerializedListOfEntriesRoundTrips() {
    qt().withExamples(2000).forAll(entries()).checkAssert(entries ->
        assertThat(ChangedFiles.parse(serialize(entries))).isEqualTo(new DiffParse.Usable(entries)));
  }

  @Test
  void mutatedBytesNeverThrowAndAUsableParseIsExact() {
    Gen<Byte> bytes = Generate.pick(List.of((byte) 0, (byte) 'M', (byte) 'R', (byte) '1', (byte) 'Q', (byte) '\n',
        (byte) 0x80, (byte) 0xc3, (byte) 0xed, (byte) 0xf0, (byte) 0xff, (byte) 'a'));
    qt().withExamples(5000)
        .forAll(entries(), integers().between(0, 400), bytes, integers().between(0, 3))
        .checkAssert((entries, at, b, mode) -> {
          byte[] original = serialize(entries);
          int pos = Math.min(at, original.length);
          byte[] mutated = switch (mode) {
            case 0 -> splice(original, pos, 0, b & 0xff);
            case 1 -> splice(original, pos, 1, -1);
            case 2 -> splice(original, pos, 1, b & 0xff);
            default -> Arrays.copyOf(original, pos);
          };
          DiffParse parse = ChangedFiles.parse(mutated);
          if (parse instanceof DiffParse.Usable usable) {
            assertThat(serialize(usable.entries())).isEqualTo(mutated);
          } else {
            assertThat(((DiffParse.Unusable) parse).reason()).isNotBlank();
          }
        });
  }

  /** The bytes with {@code remove} bytes at {@code pos} replaced by {@code insert} (none when negative). */
  private static byte[] splice(byte[] bytes, int pos, int remove, int insert) {
    int cut = Math.min(remove, bytes.length - pos);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(bytes, 0, pos);
    if (insert >= 0) {
      out.write(insert);
    }
    out.write(bytes, pos + cut, bytes.length - pos - cut);
    return out.toByteArray();
  }
}

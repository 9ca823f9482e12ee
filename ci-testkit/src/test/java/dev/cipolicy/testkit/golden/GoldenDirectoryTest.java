package dev.cipolicy.testkit.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GoldenDirectoryTest {

  @TempDir Path dir;

  @Test
  void writesReadsAndNormalizesLineEnds() {
    GoldenDirectory golden = new GoldenDirectory(dir.resolve("goldens"));
    golden.write("runSuite/a.txt", "### 1\r\necho hi\r\n");
    assertThat(golden.read("runSuite/a.txt")).hasValue("### 1\necho hi\n");
    assertThat(golden.read("runSuite/missing.txt")).isEmpty();
  }

  @Test
  void aGoldenFileThatIsNotUtf8IsReportedWithItsPath() throws IOException {
    Path file = dir.resolve("bad.txt");
    Files.write(file, new byte[] {'#', (byte) 0xff, (byte) 0xfe, '\n'});
    GoldenDirectory golden = new GoldenDirectory(dir);
    assertThatThrownBy(() -> golden.read("bad.txt"))
        .isInstanceOf(SnapshotIoException.class)
        .hasMessageContaining("cannot read golden file " + file)
        .hasCauseInstanceOf(IOException.class);
  }

  @Test
  void aGoldenDirectoryBlockedByAFileIsReportedWithThePath() throws IOException {
    Files.writeString(dir.resolve("runSuite"), "not a directory");
    GoldenDirectory golden = new GoldenDirectory(dir);
    assertThatThrownBy(() -> golden.write("runSuite/a.txt", "text"))
        .isInstanceOf(SnapshotIoException.class)
        .hasMessageContaining("cannot write golden file " + dir.resolve("runSuite/a.txt"));
  }
}

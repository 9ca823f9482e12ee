package dev.cipolicy.testkit.golden;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The directory a launcher's golden files live in, usually under {@code src/test/resources} of the module
 * whose test records them. Files are addressed by relative paths with {@code /} separators
 * ({@code runSuite/stage-a-cpu.txt}), read and written as UTF-8 with {@code \n} line endings.
 */
public final class GoldenDirectory {
  private final Path root;

  /**
   * A golden directory.
   *
   * @param root the directory; need not exist yet
   */
  public GoldenDirectory(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /**
   * The directory.
   *
   * @return its absolute path
   */
  public Path root() {
    return root;
  }

  /**
   * The absolute path of a golden file.
   *
   * @param relative e.g. {@code runSuite/stage-a-cpu.txt}
   * @return the path
   */
  public Path resolve(String relative) {
    return root.resolve(relative);
  }

  /**
   * Reads a golden file, turning {@code \r\n} into {@code \n}.
   *
   * @param relative the file
   * @return its text, absent when the file does not exist
   */
  public Optional<String> read(String relative) {
    Path file = resolve(relative);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n"));
    } catch (IOException e) {
      throw new SnapshotIoException("cannot read golden file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes a golden file, creating its directories.
   *
   * @param relative the file
   * @param text its text
   */
  public void write(String relative, String text) {
    Path file = resolve(relative);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new SnapshotIoException("cannot write golden file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Deletes a golden file and the directories it leaves empty below the root.
   *
   * @param relative the file
   */
  public void delete(String relative) {
    Path file = resolve(relative);
    try {
      Files.deleteIfExists(file);
      Path dir = file.getParent();
      while (dir != null && dir.startsWith(root) && !dir.equals(root) && isEmpty(dir)) {
        Files.delete(dir);
        dir = dir.getParent();
      }
    } catch (IOException e) {
      throw new SnapshotIoException("cannot delete golden file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Every regular file below the root.
   *
   * @return relative paths with {@code /} separators, sorted; empty when the root does not exist
   */
  public List<String> files() {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile)
          .map(p -> root.relativize(p).toString().replace(root.getFileSystem().getSeparator(), "/"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new SnapshotIoException("cannot list golden directory " + root + ": " + e.getMessage(), e);
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }
}

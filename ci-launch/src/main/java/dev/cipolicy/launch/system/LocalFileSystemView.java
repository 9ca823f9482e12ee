package dev.cipolicy.launch.system;

import dev.cipolicy.launch.FileSystemView;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** A {@link FileSystemView} of the whole local file system. */
final class LocalFileSystemView implements FileSystemView {
  private final Path workingDirectory;

  /**
   * A view that resolves relative paths against a directory.
   *
   * @param workingDirectory the working directory
   */
  LocalFileSystemView(Path workingDirectory) {
    this.workingDirectory = workingDirectory.toAbsolutePath().normalize();
  }

  @Override
  public Path workingDirectory() {
    return workingDirectory;
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(absolute(path));
  }

  @Override
  public boolean isRegularFile(Path path) {
    return Files.isRegularFile(absolute(path));
  }

  @Override
  public boolean isDirectory(Path path) {
    return Files.isDirectory(absolute(path));
  }

  @Override
  public String readString(Path path) throws IOException {
    return Files.readString(absolute(path), StandardCharsets.UTF_8);
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(absolute(directory))) {
      return entries.sorted().toList();
    }
  }

  private Path absolute(Path path) {
    return workingDirectory.resolve(path).normalize();
  }
}

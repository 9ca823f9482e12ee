package dev.cipolicy.launch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What a launcher may see of the file system: existence checks, reads and directory listings. Relative
 * paths are resolved against {@link #workingDirectory()}. Tests pass a
 * {@code FrozenFileSystemView} (ci-testkit) in which only the sandbox and the repository
 * exist, so a checkpoint that happens to lie on the build machine cannot change what a launcher does.
 * Writing is not part of the view: a launcher writes generated files through {@link Scratchpad} and
 * anything else through commands.
 */
public interface FileSystemView {
  /**
   * The directory relative paths are resolved against.
   *
   * @return an absolute, normalised path
   */
  Path workingDirectory();

  /**
   * A path resolved against the working directory.
   *
   * @param path a relative or absolute path
   * @return the absolute, normalised path
   */
  default Path resolve(String path) {
    return workingDirectory().resolve(path).normalize();
  }

  /**
   * Whether a file or directory exists.
   *
   * @param path the path
   * @return true when it exists and is visible
   */
  boolean exists(Path path);

  /**
   * Whether a path is a regular file.
   *
   * @param path the path
   * @return true for a visible regular file
   */
  boolean isRegularFile(Path path);

  /**
   * Whether a path is a directory.
   *
   * @param path the path
   * @return true for a visible directory
   */
  boolean isDirectory(Path path);

  /**
   * Reads a file as UTF-8 text.
   *
   * @param path the file
   * @return its text
   * @throws IOException when the file does not exist (or is not visible) or cannot be read
   */
  String readString(Path path) throws IOException;

  /**
   * The entries of a directory, sorted by name so that a launcher that iterates them is deterministic.
   *
   * @param directory the directory
   * @return absolute paths of its entries
   * @throws IOException when the directory does not exist (or is not visible) or cannot be read
   */
  List<Path> list(Path directory) throws IOException;
}

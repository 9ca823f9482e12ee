package dev.cipolicy.testkit.doubles;

import dev.cipolicy.launch.FileSystemView;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A {@link FileSystemView} in which only some roots exist: the sandbox of one launch and the repository,
 * plus any root a test adds. Every other path is reported absent ({@code exists} false, reads and listings
 * throw {@link NoSuchFileException}), so a model or checkpoint lying on the build machine cannot make a
 * launcher skip a download in one place and not in another. Paths are normalised first and, when they
 * exist, resolved through symbolic links, so neither {@code ..} nor a link leads out of a visible root.
 */
public final class FrozenFileSystemView implements FileSystemView {
  private final Path workingDirectory;
  private final List<Path> roots;
  private final List<Path> realRoots;

  private FrozenFileSystemView(Path workingDirectory, List<Path> roots) {
    this.workingDirectory = workingDirectory;
    this.roots = List.copyOf(roots);
    List<Path> real = new ArrayList<>();
    for (Path root : roots) {
      real.add(realOrSelf(root));
    }
    this.realRoots = List.copyOf(real);
  }

  /**
   * A view showing the sandbox, the repository and more roots; relative paths resolve against the
   * repository.
   *
   * @param sandbox the launch's sandbox directory
   * @param repositoryRoot the repository
   * @param moreRoots other visible roots
   * @return the view
   */
  public static FrozenFileSystemView of(Path sandbox, Path repositoryRoot, Path... moreRoots) {
    Set<Path> roots = new LinkedHashSet<>();
    roots.add(absolute(sandbox));
    roots.add(absolute(repositoryRoot));
    for (Path p : moreRoots) {
      roots.add(absolute(p));
    }
    return new FrozenFileSystemView(absolute(repositoryRoot), new ArrayList<>(roots));
  }

  /**
   * The visible roots.
   *
   * @return absolute, normalised paths, the sandbox first
   */
  public List<Path> visibleRoots() {
    return roots;
  }

  /**
   * Whether a path lies in a visible root (after normalisation and, for an existing path, after resolving
   * symbolic links).
   *
   * @param path the path
   * @return true when visible
   */
  public boolean isVisible(Path path) {
    Path p = workingDirectory.resolve(path).normalize();
    if (roots.stream().noneMatch(p::startsWith)) {
      return false;
    }
    if (!Files.exists(p)) {
      return true;
    }
    Path real = realOrSelf(p);
    return realRoots.stream().anyMatch(real::startsWith);
  }

  @Override
  public Path workingDirectory() {
    return workingDirectory;
  }

  @Override
  public boolean exists(Path path) {
    return isVisible(path) && Files.exists(workingDirectory.resolve(path).normalize());
  }

  @Override
  public boolean isRegularFile(Path path) {
    return isVisible(path) && Files.isRegularFile(workingDirectory.resolve(path).normalize());
  }

  @Override
  public boolean isDirectory(Path path) {
    return isVisible(path) && Files.isDirectory(workingDirectory.resolve(path).normalize());
  }

  @Override
  public String readString(Path path) throws IOException {
    return Files.readString(visible(path), StandardCharsets.UTF_8);
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(visible(directory))) {
      return entries.filter(this::isVisible).sorted().toList();
    }
  }

  private Path visible(Path path) throws NoSuchFileException {
    Path p = workingDirectory.resolve(path).normalize();
    if (!isVisible(p)) {
      throw new NoSuchFileException(p.toString(), null,
          "hidden by the frozen file system view; only " + roots + " are visible");
    }
    return p;
  }

  private static Path absolute(Path p) {
    return p.toAbsolutePath().normalize();
  }

  private static Path realOrSelf(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }
}

package dev.cipolicy.testkit.doubles;

import dev.cipolicy.launch.InvalidCommandException;
import dev.cipolicy.launch.Scratchpad;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A {@link Scratchpad} with stable placeholders: every run id is the same fixed value and the n-th
 * temporary file is {@code <directory>/pseudo_file_<n>.<extension>}, recorded as a {@link PseudoFile}
 * instead of written. Thread-safe; files are numbered in the order they were written.
 */
public final class StableScratchpad implements Scratchpad {
  /** The default run id, in the format of a real one ({@code yyMMdd-HHmmss-SSS}). */
  public static final String DEFAULT_RUN_ID = "260101-000000-000";

  /** The default directory of the placeholder paths; it does not exist on any machine. */
  public static final Path DEFAULT_DIRECTORY = Path.of("/frozen");

  private static final Pattern EXTENSION = Pattern.compile("[A-Za-z0-9]{1,16}");

  private final String runId;
  private final Path directory;
  private final List<PseudoFile> files = new ArrayList<>();

  /**
   * A scratchpad with the default run id and directory.
   */
  public StableScratchpad() {
    this(DEFAULT_RUN_ID, DEFAULT_DIRECTORY);
  }

  /**
   * A scratchpad with a given run id and placeholder directory.
   *
   * @param runId the run id every call returns
   * @param directory the directory of the placeholder paths
   */
  public StableScratchpad(String runId, Path directory) {
    this.runId = runId;
    this.directory = directory;
  }

  @Override
  public String newRunId() {
    return runId;
  }

  @Override
  public synchronized Path writeTempFile(String content, String extension) {
    if (!EXTENSION.matcher(extension).matches()) {
      throw new InvalidCommandException("temporary file extension '" + extension
          + "' is not valid; expected 1 to 16 letters or digits without the dot, e.g. json");
    }
    Path path = directory.resolve("pseudo_file_" + (files.size() + 1) + "." + extension);
    files.add(new PseudoFile(files.size() + 1, path, content));
    return path;
  }

  /**
   * The files written so far.
   *
   * @return in the order they were written
   */
  public synchronized List<PseudoFile> pseudoFiles() {
    return List.copyOf(files);
  }
}

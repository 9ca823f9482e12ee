package dev.cipolicy.testkit.snapshot;

import dev.cipolicy.testkit.doubles.Recording;
import java.nio.file.Path;

/**
 * The outcome of a snapshot that passed.
 *
 * @param snapshotCase the case
 * @param recording the first of its two runs
 * @param text the scrubbed text, equal to the golden file's
 * @param goldenFile the golden file
 * @param status what happened to the golden file
 */
public record SnapshotResult(SnapshotCase snapshotCase, Recording recording, String text, Path goldenFile,
    Status status) {
  /** What happened to the golden file. */
  public enum Status {
    /** Compared: equal. */
    MATCHED,
    /** Update mode: the file did not exist and was written. */
    CREATED,
    /** Update mode: the file differed and was rewritten. */
    UPDATED,
    /** Update mode: the file was already equal. */
    UNCHANGED
  }
}

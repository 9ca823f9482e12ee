package dev.cipolicy.launch;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The values a launcher generates: run ids and temporary files (the seed's {@code create_run_id} and
 * {@code save_to_temp_file}). Tests pass a {@code StableScratchpad} (ci-testkit), which
 * returns a fixed run id and stable placeholder paths and records each file's content, so that generated
 * configuration files become part of the golden file.
 */
public interface Scratchpad {
  /**
   * A new id for this launch.
   *
   * @return the run id
   */
  String newRunId();

  /**
   * Writes text to a new temporary file.
   *
   * @param content the text (UTF-8)
   * @param extension the file extension without the dot, e.g. {@code json}
   * @return the file's absolute path
   * @throws IOException when the file cannot be written
   */
  Path writeTempFile(String content, String extension) throws IOException;
}

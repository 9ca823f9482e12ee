package dev.cipolicy.launch.system;

import dev.cipolicy.launch.Scratchpad;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * A {@link Scratchpad} that writes real temporary files and makes run ids from the clock, in the seed's
 * format {@code yyMMdd-HHmmss-SSS} (UTC).
 */
final class TempDirectoryScratchpad implements Scratchpad {
  private static final DateTimeFormatter RUN_ID = DateTimeFormatter.ofPattern("yyMMdd-HHmmss-SSS")
      .withZone(ZoneOffset.UTC);

  private final Path directory;
  private final Clock clock;

  /**
   * A scratchpad writing into a directory.
   *
   * @param directory where temporary files go (created when missing)
   * @param clock the clock run ids are made from
   */
  TempDirectoryScratchpad(Path directory, Clock clock) {
    this.directory = directory.toAbsolutePath().normalize();
    this.clock = clock;
  }

  @Override
  public String newRunId() {
    return RUN_ID.format(clock.instant());
  }

  @Override
  public Path writeTempFile(String content, String extension) throws IOException {
    Files.createDirectories(directory);
    Path file = Files.createTempFile(directory, "launch-", "." + extension);
    Files.writeString(file, content, StandardCharsets.UTF_8);
    return file;
  }
}

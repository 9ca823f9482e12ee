package dev.cipolicy.launch.system;

import dev.cipolicy.launch.LaunchPorts;
import java.nio.file.Path;
import java.time.Clock;

/** The production wiring of {@link LaunchPorts}: the real machine. */
public final class SystemPorts {
  private SystemPorts() {}

  /**
   * Ports over this process's environment, the local file system and processes, the UTC system clock, and
   * temporary files under {@code java.io.tmpdir}.
   *
   * @param workingDirectory where relative paths resolve and commands run
   * @return the ports
   */
  public static LaunchPorts create(Path workingDirectory) {
    Clock clock = Clock.systemUTC();
    return new LaunchPorts(new ProcessCommandExecutor(workingDirectory), SystemEnvironment.current(),
        new LocalFileSystemView(workingDirectory), clock,
        new TempDirectoryScratchpad(Path.of(System.getProperty("java.io.tmpdir")), clock));
  }
}

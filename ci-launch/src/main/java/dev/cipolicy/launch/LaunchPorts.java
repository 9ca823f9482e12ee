package dev.cipolicy.launch;

import java.time.Clock;
import java.util.Objects;

/**
 * Everything a launcher reaches outside itself, passed to its constructor.
 *
 * @param executor runs commands
 * @param environment the environment variables it reads
 * @param files what it sees of the file system
 * @param clock the time
 * @param scratchpad run ids and generated files
 */
public record LaunchPorts(CommandExecutor executor, Environment environment, FileSystemView files, Clock clock,
    Scratchpad scratchpad) {
  /**
   * Checks that every port is present.
   *
   * @param executor runs commands
   * @param environment the environment variables
   * @param files the file system view
   * @param clock the time
   * @param scratchpad run ids and generated files
   */
  public LaunchPorts {
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(files, "files");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(scratchpad, "scratchpad");
  }
}

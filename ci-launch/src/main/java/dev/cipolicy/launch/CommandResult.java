package dev.cipolicy.launch;

import java.util.Objects;

/**
 * What running a {@link Command} gave: its exit code and its captured standard output and error.
 *
 * @param exitCode the exit code, 0 for success
 * @param stdout the standard output, UTF-8 decoded
 * @param stderr the standard error, UTF-8 decoded
 */
public record CommandResult(int exitCode, String stdout, String stderr) {
  /**
   * Checks the streams.
   *
   * @param exitCode the exit code
   * @param stdout standard output
   * @param stderr standard error
   */
  public CommandResult {
    Objects.requireNonNull(stdout, "stdout");
    Objects.requireNonNull(stderr, "stderr");
  }

  /**
   * A successful result with some output.
   *
   * @param stdout the standard output
   * @return exit code 0, empty standard error
   */
  public static CommandResult success(String stdout) {
    return new CommandResult(0, stdout, "");
  }

  /**
   * A successful result with no output.
   *
   * @return exit code 0, empty streams
   */
  public static CommandResult success() {
    return success("");
  }

  /**
   * A failed result.
   *
   * @param exitCode a non-zero exit code
   * @param stderr the standard error
   * @return the result
   * @throws InvalidCommandException when {@code exitCode} is 0
   */
  public static CommandResult failure(int exitCode, String stderr) {
    if (exitCode == 0) {
      throw new InvalidCommandException("a failed command result needs a non-zero exit code; got 0");
    }
    return new CommandResult(exitCode, "", stderr);
  }

  /**
   * Whether the command succeeded.
   *
   * @return true for exit code 0
   */
  public boolean succeeded() {
    return exitCode == 0;
  }
}

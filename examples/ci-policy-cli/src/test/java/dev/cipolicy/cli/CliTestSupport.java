package dev.cipolicy.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/** Runs the CLI in-process against the repository root and captures its streams. */
final class CliTestSupport {
  static final Path REPO = Path.of("../..").toAbsolutePath().normalize();
  static final String POLICY = "examples/policies/miles.yaml";
  static final String REGISTRATIONS = "examples/registrations/miles.yaml";

  private CliTestSupport() {}

  /** The outcome of one CLI run. */
  record Result(int code, String out, String err) {}

  static Result run(Map<String, String> env, String... args) {
    return run(env, new ByteArrayOutputStream(), args);
  }

  /**
   * Runs the CLI with its standard output written to {@code out} as it goes, so that a test can read what a
   * long-running command printed so far ({@link ByteArrayOutputStream#toString} is safe from another thread).
   */
  static Result run(Map<String, String> env, ByteArrayOutputStream out, String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = CiPolicyCli.run(args, env, REPO, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Result run(String... args) {
    return run(Map.of(), args);
  }
}

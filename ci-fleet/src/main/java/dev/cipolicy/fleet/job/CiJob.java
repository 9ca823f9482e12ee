package dev.cipolicy.fleet.job;

import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * What a GPU host needs to run one suite shard of a CI run: the repository and commit to check out, the command
 * (a program and its arguments, run without a shell), the environment it adds, the names of the variables that
 * carry the granted device indices ({@code CUDA_VISIBLE_DEVICES}; {@code HIP_VISIBLE_DEVICES} and
 * {@code ROCR_VISIBLE_DEVICES}), and the container image when the project runs its tests in one.
 *
 * <p>Limits: at most {@value #MAX_ARGS} arguments of at most {@value #MAX_ARG} characters, at most
 * {@value #MAX_ENV} variables whose names are {@code [A-Za-z_][A-Za-z0-9_]*} of at most 128 characters and whose
 * values have at most {@value #MAX_ARG} characters; no text holds NUL. The repository is {@code owner/name}.
 */
@Value.Immutable
@ValueStyle
public abstract class CiJob {

  /** The most arguments of a command, the program included. */
  public static final int MAX_ARGS = 256;
  /** The most characters of one argument or variable value. */
  public static final int MAX_ARG = 4096;
  /** The most variables a job adds. */
  public static final int MAX_ENV = 128;

  private static final Pattern REPOSITORY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_.-]{1,100}");
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
  private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
  private static final Pattern IMAGE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,254}");

  CiJob() {}

  /**
   * The repository the commit belongs to.
   *
   * @return {@code owner/name}
   */
  public abstract String repository();

  /**
   * The commit the job checks out.
   *
   * @return the full SHA, 40 or 64 lowercase hex digits
   */
  public abstract String commit();

  /**
   * The command: a program and its arguments, each rendered on its own (a value never splits into several).
   *
   * @return at least the program
   */
  public abstract List<String> command();

  /**
   * The variables the job adds to the host's environment.
   *
   * @return name to value
   */
  public abstract Map<String, String> env();

  /**
   * The variables that carry the granted devices, each set to the device indices joined by commas.
   *
   * @return the names, e.g. {@code [CUDA_VISIBLE_DEVICES]}; empty for a job without GPUs
   */
  public abstract List<String> deviceEnv();

  /**
   * The container image the command runs in.
   *
   * @return the image reference; empty to run on the host
   */
  public abstract Optional<String> image();

  /** Checks every field against its rule and limit. */
  @Value.Check
  protected void check() {
    if (!REPOSITORY.matcher(repository()).matches()) {
      throw new InvalidCiJobException("repository '" + shown(repository()) + "' is not owner/name");
    }
    if (!SHA.matcher(commit()).matches()) {
      throw new InvalidCiJobException("commit '" + shown(commit()) + "' is not a full SHA; expected 40 or 64"
          + " lowercase hex digits");
    }
    if (command().isEmpty() || command().get(0).isBlank()) {
      throw new InvalidCiJobException("command is empty; expected a program and its arguments");
    }
    if (command().size() > MAX_ARGS) {
      throw new InvalidCiJobException("command has " + command().size() + " arguments; expected at most " + MAX_ARGS);
    }
    for (int i = 0; i < command().size(); i++) {
      text(command().get(i), "command argument " + i);
    }
    if (env().size() > MAX_ENV) {
      throw new InvalidCiJobException("env has " + env().size() + " variables; expected at most " + MAX_ENV);
    }
    env().forEach((name, value) -> {
      variable(name, "env");
      text(value, "env." + name);
    });
    for (String name : deviceEnv()) {
      variable(name, "deviceEnv");
      if (env().containsKey(name)) {
        throw new InvalidCiJobException("env sets " + name + ", which carries the granted devices; expected the"
            + " collector alone to set it");
      }
    }
    image().ifPresent(i -> {
      if (!IMAGE.matcher(i).matches()) {
        throw new InvalidCiJobException("image '" + shown(i) + "' is not an image reference");
      }
    });
  }

  private static void variable(String name, String where) {
    if (!VARIABLE.matcher(name).matches()) {
      throw new InvalidCiJobException(where + " names variable '" + shown(name) + "'; expected [A-Za-z_][A-Za-z0-9_]*"
          + " of at most 128 characters");
    }
  }

  private static void text(String s, String where) {
    if (s.length() > MAX_ARG) {
      throw new InvalidCiJobException(where + " has " + s.length() + " characters; expected at most " + MAX_ARG);
    }
    if (s.indexOf('\0') >= 0) {
      throw new InvalidCiJobException(where + " holds a NUL character");
    }
  }

  static String shown(String s) {
    String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    StringBuilder sb = new StringBuilder(cut.length());
    cut.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return sb.toString();
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link CiJob}; {@code build()} checks every field. */
  public static final class Builder extends ImmutableCiJob.Builder {
    Builder() {}
  }
}

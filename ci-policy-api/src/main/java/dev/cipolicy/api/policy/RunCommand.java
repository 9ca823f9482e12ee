package dev.cipolicy.api.policy;

import dev.cipolicy.api.InvalidValueException;
import dev.cipolicy.api.value.ValueCheck;
import dev.cipolicy.api.value.ValueStyle;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.immutables.value.Value;

/**
 * How a job of a suite runs on a host: the argument vector of its command, the container image it runs in
 * and the environment variables it gets, each a {@link CommandTemplate} with {@link RunPlaceholder}s. A
 * backend declares one for its suites and a suite may declare its own, which replaces the backend's whole.
 * Each argument is rendered on its own and the command is started without a shell.
 *
 * <pre>{@code
 * RunCommand.builder().addCommand("python", "tests/ci/run_suite.py", "--suite", "{suite}")
 *     .image("radixark/miles:{image_tag}").putEnv("CI_RUN_ID", "{run_id}").build();
 * }</pre>
 */
@Value.Immutable
@ValueStyle
public abstract class RunCommand {
  /** The most arguments a command may have: 256. */
  public static final int MAX_ARGS = 256;

  /** The most environment variables a command may set: 64. */
  public static final int MAX_ENV = 64;

  /** The grammar of an environment variable name: a letter or {@code _}, then up to 127 letters, digits or {@code _}. */
  public static final String ENV_NAME_GRAMMAR = "[A-Za-z_][A-Za-z0-9_]{0,127}";

  private static final Pattern ENV_NAME = Pattern.compile(ENV_NAME_GRAMMAR);

  /**
   * The argument vector, the program first; each element a template rendered into exactly one argument.
   *
   * @return 1 to {@link #MAX_ARGS} templates, the first not empty
   */
  public abstract List<String> command();

  /**
   * The container image the command runs in; absent when it runs directly on the host.
   *
   * @return a template, e.g. {@code radixark/miles:{image_tag}}
   */
  public abstract Optional<String> image();

  /**
   * Environment variables set for the command, by name; each value a template.
   *
   * @return at most {@link #MAX_ENV} entries, names matching {@link #ENV_NAME_GRAMMAR}
   */
  public abstract Map<String, String> env();

  /**
   * Rejects an empty command or one of more than {@link #MAX_ARGS} arguments, an empty program, a template
   * that is not valid ({@link CommandTemplate#problem}), a blank image, more than {@link #MAX_ENV} variables
   * and a variable name outside {@link #ENV_NAME_GRAMMAR}.
   *
   * @throws InvalidValueException naming the field, e.g. {@code command[3]} or {@code env.CI_RUN_ID}
   */
  @Value.Check
  protected void check() {
    ValueCheck check = ValueCheck.of("RunCommand");
    List<String> command = command();
    check.require(!command.isEmpty(), "command", () -> "the command is empty; expected the program and its"
        + " arguments, e.g. [python, tests/ci/run_suite.py, --suite, \"{suite}\"]");
    check.require(command.size() <= MAX_ARGS, "command", () -> "the command has " + command.size()
        + " arguments; expected at most " + MAX_ARGS);
    check.require(command.isEmpty() || !command.get(0).isBlank(), "command[0]",
        () -> "the program (the first element of the command) is blank; expected a program name or path");
    for (int i = 0; i < command.size() && i < MAX_ARGS; i++) {
      String field = "command[" + i + "]";
      CommandTemplate.problem(command.get(i)).ifPresent(p -> check.require(false, field, () -> p));
    }
    image().ifPresent(image -> {
      check.require(!image.isBlank() && image.chars().noneMatch(Character::isWhitespace), "image",
          () -> "the image '" + image + "' is blank or contains white space; expected e.g. radixark/miles:{image_tag}");
      CommandTemplate.problem(image).ifPresent(p -> check.require(false, "image", () -> p));
    });
    check.require(env().size() <= MAX_ENV, "env", () -> "the command sets " + env().size()
        + " environment variables; expected at most " + MAX_ENV);
    for (Map.Entry<String, String> e : env().entrySet()) {
      String field = "env." + e.getKey();
      check.require(ENV_NAME.matcher(e.getKey()).matches(), field, () -> "environment variable name '"
          + shown(e.getKey()) + "' is not valid; expected " + ENV_NAME_GRAMMAR);
      CommandTemplate.problem(e.getValue()).ifPresent(p -> check.require(false, field, () -> p));
    }
    check.done();
  }

  private static String shown(String text) {
    return text.length() > 80 ? text.substring(0, 80) + "..." : text;
  }

  /**
   * A new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link RunCommand}; {@code build()} checks every field and rule of the value. */
  public static final class Builder extends ImmutableRunCommand.Builder {
    Builder() {}
  }
}

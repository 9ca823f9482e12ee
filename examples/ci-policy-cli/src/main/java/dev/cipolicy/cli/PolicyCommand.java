package dev.cipolicy.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * A subcommand that works on a policy document: loads {@code --policy}, runs the command, and turns
 * every library error into an annotation on stderr ({@code ::error ...::<message>}, see {@link Annotations})
 * with exit code 1.
 */
abstract class PolicyCommand implements Callable<Integer> {
  /** Pretty-printing JSON writer for {@code --json} output. */
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @ParentCommand
  private @Nullable CiPolicyCli cli;

  @Option(names = "--policy", required = true, paramLabel = "FILE", description = "The policy document (YAML or JSON).")
  private @Nullable String policy;

  @Override
  public final Integer call() {
    CiPolicyCli c = Objects.requireNonNull(cli);
    try {
      return run(c, Inputs.loadPolicy(c, Objects.requireNonNull(policy)));
    } catch (CiPolicyException e) {
      Annotations.report(c, e);
      return CiPolicyCli.EXIT_ERROR;
    } catch (IOException e) {
      c.console().error(Inputs.describe(e));
      return CiPolicyCli.EXIT_ERROR;
    }
  }

  /**
   * Runs the command on the loaded policy.
   *
   * @param cli the CLI: environment, paths and streams
   * @param loaded the checked policy
   * @return the exit code
   * @throws IOException when writing output fails
   */
  abstract int run(CiPolicyCli cli, LoadedPolicy loaded) throws IOException;

  /**
   * Prints {@code value} as pretty JSON on standard output.
   *
   * @param cli the CLI
   * @param value maps, lists and scalars
   * @throws IOException when serialisation fails
   */
  static void printJson(CiPolicyCli cli, Object value) throws IOException {
    cli.console().json(JSON.writeValueAsString(value));
  }
}

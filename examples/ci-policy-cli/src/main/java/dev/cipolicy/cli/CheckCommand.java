package dev.cipolicy.cli;

import dev.cipolicy.api.CiPolicyException;
import dev.cipolicy.api.Warning;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.core.load.LoadedPolicy;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code ci-policy check}: loads a policy, runs the static checks and prints the warnings. */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = "Loads a policy document and runs its static checks (crons, overlaps, labels, suites).")
final class CheckCommand implements Callable<Integer> {
  @ParentCommand
  private @Nullable CiPolicyCli cli;

  @Option(names = "--policy", required = true, paramLabel = "FILE", description = "The policy document (YAML or JSON).")
  private @Nullable String policy;

  @Override
  public Integer call() {
    CiPolicyCli c = Objects.requireNonNull(cli);
    try {
      LoadedPolicy loaded = Inputs.loadPolicy(c, Objects.requireNonNull(policy));
      Policy p = loaded.policy();
      for (Warning w : loaded.warnings()) {
        c.err().println("::warning::" + w.message());
      }
      long suites = p.backends().stream().mapToLong(b -> b.suites().size()).sum();
      c.out().println("Policy " + p.name() + " is valid: " + p.domainLabels().size() + " labels, "
          + p.cadences().size() + " cadences, " + p.schedules().size() + " schedules, "
          + p.backends().size() + " backends, " + suites + " suites, " + loaded.warnings().size()
          + " warnings");
      return 0;
    } catch (CiPolicyException e) {
      c.err().println("::error::" + e.getMessage());
      return CiPolicyCli.EXIT_ERROR;
    }
  }
}

package dev.cipolicy.cli;

import dev.cipolicy.api.Warning;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import picocli.CommandLine.Command;

/** {@code ci-policy check}: loads a policy, runs the static checks and prints the warnings. */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = "Loads a policy document and runs its static checks (crons, overlaps, labels, suites).")
final class CheckCommand extends PolicyCommand {
  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
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
  }

}

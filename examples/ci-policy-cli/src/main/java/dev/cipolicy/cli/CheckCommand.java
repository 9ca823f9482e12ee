package dev.cipolicy.cli;

import dev.cipolicy.api.Warning;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.core.SuiteRegistry;
import dev.cipolicy.core.load.LoadedPolicy;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ci-policy check}: loads a policy, runs the static checks and prints the warnings; with
 * {@code --registrations}, also validates a registration manifest against that policy (a manifest names the
 * policy's backends, suites and labels, so it is checked against the policy it is used with).
 */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = "Loads a policy document and runs its static checks (crons, overlaps, labels, suites).")
final class CheckCommand extends PolicyCommand {
  @Option(names = "--workflow", paramLabel = "FILE", description = "A GitHub Actions workflow whose on.schedule"
      + " crons must match the policy's schedule table exactly (both ways); a mismatch exits 1.")
  private @Nullable String workflow;

  @Option(names = "--registrations", paramLabel = "FILE", description = "A test registration manifest to"
      + " validate against the policy (backends, suites, labels, shards); a problem exits 1.")
  private @Nullable String registrations;

  @Override
  int run(CiPolicyCli c, LoadedPolicy loaded) throws IOException {
    Policy p = loaded.policy();
    Optional<SuiteRegistry> registry = Optional.ofNullable(registrations)
        .map(r -> Inputs.loadRegistry(c, loaded, r));
    for (Warning w : loaded.warnings()) {
      Annotations.warning(c, w);
    }
    if (workflow != null) {
      List<String> crons = WorkflowCrons.read(workflow, Inputs.readText(c.resolvePath(workflow), "workflow file", Inputs.MAX_WORKFLOW_BYTES));
      List<Warning> mismatches = loaded.resolver().compareWorkflowCrons(crons);
      for (Warning w : mismatches) {
        Annotations.fileError(c, workflow, w);
      }
      if (!mismatches.isEmpty()) {
        return CiPolicyCli.EXIT_ERROR;
      }
      c.console().line("Workflow " + workflow + " schedules " + crons.size() + " cron(s), each with a policy.");
    }
    registry.ifPresent(r -> c.console().line("Registrations " + registrations + " are valid against policy "
        + p.name() + ": " + r.registrations().size() + " tests, "
        + r.registrations().stream().filter(t -> t.disabled().isPresent()).count() + " disabled"));
    long suites = p.backends().stream().mapToLong(b -> b.suites().size()).sum();
    c.console().line("Policy " + p.name() + " is valid: " + p.domainLabels().size() + " labels, "
        + p.cadences().size() + " cadences, " + p.schedules().size() + " schedules, "
        + p.backends().size() + " backends, " + suites + " suites, " + loaded.warnings().size()
        + " warnings");
    return 0;
  }

}

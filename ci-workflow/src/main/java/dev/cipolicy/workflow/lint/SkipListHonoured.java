package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#SKIP_LIST_HONOURED}: a stage job whose suite the skipped stages list does not run.
 */
final class SkipListHonoured implements LintCheck {
  private final LintRun run;

  SkipListHonoured(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    for (LintRun.Declared d : run.declared()) {
      skipListHonoured(d, out);
    }
  }

  private void skipListHonoured(LintRun.Declared d, List<LintFinding> out) {
    Policy p = run.policy().orElseThrow();
    Set<String> skippable = new LinkedHashSet<>(p.prStages());
    Map<String, Set<String>> running = new LinkedHashMap<>();
    for (Map.Entry<String, String> stage : d.stages().entrySet()) {
      boolean canSkip = skippable.isEmpty() ? d.gate().map(g -> !g.id().equals(stage.getKey())).orElse(true)
          : skippable.contains(stage.getValue());
      if (!canSkip || NeedsDirect.readsNotDirect(d.workflow().job(stage.getKey()).orElseThrow())) {
        // a stage whose if reads needs of a job it does not need is reported by needs-direct: the root cause
        continue;
      }
      for (LintRun.LintEvent e : d.events()) {
        Scenario s = run.outputs(d, Scenario.of(e.event()), e.cadences().stream().findFirst().orElseGet(run::defaultCadence))
            .withOutput(d.policyJob().id(), d.roles().skippedStagesOutput(), "[\"" + stage.getValue() + "\"]");
        Simulation sim = d.simulator().simulate(s);
        if (sim.result(d.policyJob().id()) != JobResult.SUCCESS) {
          continue;
        }
        JobResult r = sim.result(stage.getKey());
        if (r != JobResult.SKIPPED) {
          running.computeIfAbsent(stage.getKey(), k -> new LinkedHashSet<>()).add(e.description()
              + (r == JobResult.UNKNOWN ? " (undecided: " + sim.job(stage.getKey()).orElseThrow().reason() + ")" : ""));
        }
      }
    }
    running.forEach((id, events) -> {
      Job j = d.workflow().job(id).orElseThrow();
      String suite = d.stages().get(id);
      out.add(new LintFinding(LintRule.SKIP_LIST_HONOURED, Severity.ERROR, LintRun.conditionOrJob(j), Optional.of(id),
          "stage job " + id + " runs although needs." + d.policyJob().id() + ".outputs." + d.roles().skippedStagesOutput()
              + " lists its suite " + suite + ", on " + String.join(", ", events) + "; add `!contains(needs."
              + d.policyJob().id() + ".outputs." + d.roles().skippedStagesOutput() + ", '\"" + suite + "\"')` to its if"));
    });
  }
}

package dev.cipolicy.workflow.lint;

import dev.cipolicy.workflow.Event;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.WorkflowSimulator;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#CLOSED_RUNS_NOTHING}: a closed pull request runs no job, and a workflow with pull
 * request stages subscribes to {@code closed}.
 */
final class ClosedRunsNothing implements LintCheck {
  private final LintRun run;

  ClosedRunsNothing(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    Set<String> declaredFiles = new LinkedHashSet<>();
    run.declared().forEach(d -> declaredFiles.add(d.workflow().file()));
    for (Workflow w : run.workflows()) {
      if (!declaredFiles.contains(w.file())) {
        closedRunsNothing(w, Optional.empty(), out);
      }
    }
    for (LintRun.Declared d : run.declared()) {
      closedRunsNothing(d.workflow(), Optional.of(d), out);
    }
  }

  private void closedRunsNothing(Workflow w, Optional<LintRun.Declared> d, List<LintFinding> out) {
    for (String name : List.of("pull_request", "pull_request_target")) {
      Optional<Trigger> t = w.trigger(name);
      if (t.isEmpty()) {
        continue;
      }
      if (!t.get().types().contains("closed")) {
        if (d.isPresent() && !d.get().stages().isEmpty()) {
          out.add(new LintFinding(LintRule.CLOSED_RUNS_NOTHING, Severity.ERROR, t.get().location(), Optional.empty(),
              w.file() + " runs pull request stages but its " + name + " trigger does not subscribe to closed, so"
                  + " closing a pull request does not cancel its runs; add closed to " + name + ".types and keep"
                  + " every job off it with `if: github.event.action != 'closed'`"));
        }
        continue;
      }
      Event e = new Event(name, Optional.of("closed"), Optional.empty(), Map.of(), List.of(), Optional.empty());
      Scenario s = Scenario.of(e);
      // a closed pull request resolves no cadence of its own: the policy's first stands in
      Simulation sim = WorkflowSimulator.of(w).simulate(d.map(x -> run.outputs(x, s, run.defaultCadence())).orElse(s));
      Map<String, JobResult> results = LintRun.results(sim);
      Map<String, String> reasons = new HashMap<>();
      sim.jobs().forEach(o -> reasons.put(o.job(), o.reason()));
      for (Job j : w.jobs()) {
        JobResult r = results.get(j.id());
        if (r == JobResult.SKIPPED) {
          continue;
        }
        boolean parentRuns = j.needs().stream().anyMatch(n -> results.get(n) != JobResult.SKIPPED);
        if (parentRuns) {
          continue;
        }
        String why = reasons.getOrDefault(j.id(), "");
        Severity sev = r == JobResult.UNKNOWN ? Severity.WARNING : Severity.ERROR;
        out.add(new LintFinding(LintRule.CLOSED_RUNS_NOTHING, sev, LintRun.conditionOrJob(j), Optional.of(j.id()),
            "on " + name + " closed, job " + j.id() + (r == JobResult.UNKNOWN ? " may run" : " runs") + " ("
                + why + "); a closed pull request starts a run only to cancel the older ones — add"
                + " `github.event.action != 'closed'` to its if"));
      }
    }
  }
}

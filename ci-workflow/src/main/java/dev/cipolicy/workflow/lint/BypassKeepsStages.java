package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.policy.CadenceDefinition;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.WorkflowLabel;
import dev.cipolicy.workflow.InjectedResult;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.JobResult;
import dev.cipolicy.workflow.Scenario;
import dev.cipolicy.workflow.Simulation;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#BYPASS_KEEPS_STAGES}: with the bypass output true and the gate failed, the stage
 * jobs after the gate still run.
 */
final class BypassKeepsStages implements LintCheck {
  private final LintRun run;

  BypassKeepsStages(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    for (LintRun.Declared d : run.declared()) {
      bypassKeepsStages(d, out);
    }
  }

  /** One root cause of skipped stage jobs, collected over the events it shows on. */
  private static final class Cause {
    final Job job;
    final String reason;
    final Set<String> stages = new LinkedHashSet<>();
    final Map<String, Set<String>> events = new LinkedHashMap<>();
    boolean unknown;

    Cause(Job job, String reason) {
      this.job = job;
      this.reason = reason;
    }
  }

  private void bypassKeepsStages(LintRun.Declared d, List<LintFinding> out) {
    if (d.gate().isEmpty()) {
      return;
    }
    Job gate = d.gate().get();
    Set<String> beforeGate = new HashSet<>(d.simulator().ancestors(gate.id()));
    Map<String, Cause> causes = new LinkedHashMap<>();
    for (LintRun.LintEvent e : d.events()) {
      Optional<String> cadence = bypassCadence(e);
      if (cadence.isEmpty()) {
        continue;
      }
      Scenario s = Scenario.of(e.event()).withResult(gate.id(), InjectedResult.FAILURE);
      s = run.outputs(d, s, cadence.get()).withOutput(d.policyJob().id(), d.roles().bypassOutput(), "true");
      Simulation sim = d.simulator().simulate(s);
      Map<String, JobResult> results = LintRun.results(sim);
      if (results.get(d.policyJob().id()) != JobResult.SUCCESS || results.get(gate.id()) != JobResult.FAILURE) {
        continue;
      }
      for (String stage : d.stages().keySet()) {
        if (stage.equals(gate.id()) || beforeGate.contains(stage)) {
          continue;
        }
        JobResult r = results.get(stage);
        if (r != JobResult.SKIPPED && r != JobResult.UNKNOWN) {
          continue;
        }
        Job root = rootOf(d, results, stage, r);
        Cause c = causes.computeIfAbsent(root.id(), k -> new Cause(root, sim.job(root.id()).orElseThrow().reason()));
        c.stages.add(stage);
        c.events.computeIfAbsent(e.event().name() + (e.event().schedule().isPresent() ? " '" + e.event().schedule().get()
            + "'" : "") + " (cadence " + cadence.get() + ")", k -> new LinkedHashSet<>())
            .addAll(e.event().action().map(List::of).orElse(List.of()));
        c.unknown |= r == JobResult.UNKNOWN;
      }
    }
    for (Cause c : causes.values()) {
      String p = d.policyJob().id();
      String fix;
      if (c.job.condition().isEmpty()) {
        String need = c.job.needs().isEmpty() ? "<the job it needs>" : c.job.needs().get(c.job.needs().size() - 1);
        fix = "give " + c.job.id() + " an if that calls a status function and checks what it needs, e.g. `if: ${{"
            + " !cancelled() && needs." + need + ".result == 'success' }}`, so GitHub's implicit success() over its"
            + " ancestors (" + gate.id() + " included) no longer applies";
      } else if (!c.job.condition().get().expression().callsStatusFunction()) {
        fix = "its if calls no status function, so GitHub adds success() over every ancestor (" + gate.id()
            + " included); start it with `!cancelled() &&` and check the results it needs explicitly";
      } else {
        fix = "let its if accept a failed " + gate.id() + " when needs." + p + ".outputs." + d.roles().bypassOutput()
            + " is 'true'";
      }
      String what = c.job.id().equals(first(c.stages)) && c.stages.size() == 1
          ? "stage job " + c.job.id() + (c.unknown ? " may not run" : " does not run")
          : c.job.id() + " is " + (c.unknown ? "not known to run" : "skipped") + ", so stage jobs " + c.stages
              + (c.unknown ? " may not run" : " do not run");
      out.add(new LintFinding(LintRule.BYPASS_KEEPS_STAGES, c.unknown ? Severity.WARNING : Severity.ERROR,
          LintRun.conditionOrJob(c.job), Optional.of(c.job.id()),
          "with needs." + p + ".outputs." + d.roles().bypassOutput() + " true and the fast-fail gate " + gate.id()
              + " failed, " + what + " on " + events(c.events) + " (" + c.reason + "); " + fix));
    }
  }

  /** {@code pull_request opened, labeled (cadence nightly); schedule '0 15 * * 6' (cadence weekly)}. */
  private static String events(Map<String, Set<String>> events) {
    List<String> parts = new ArrayList<>();
    events.forEach((key, actions) -> {
      int cut = key.indexOf(' ');
      parts.add(actions.isEmpty() ? key : key.substring(0, cut) + " " + String.join(", ", actions) + key.substring(cut));
    });
    return String.join("; ", parts);
  }

  private static String first(Set<String> s) {
    return s.iterator().next();
  }

  /**
   * The job that stops a stage job: the earliest skipped (or undecided) job of the stage's closure, itself
   * included, none of whose needs is skipped.
   */
  private static Job rootOf(LintRun.Declared d, Map<String, JobResult> results, String stage, JobResult kind) {
    List<String> chain = new ArrayList<>(d.simulator().ancestors(stage));
    chain.add(stage);
    for (String id : chain) {
      if (results.get(id) != kind) {
        continue;
      }
      Job j = d.simulator().jobOf(id).orElseThrow();
      if (j.needs().stream().noneMatch(n -> results.get(n) == kind)) {
        return j;
      }
    }
    return d.workflow().job(stage).orElseThrow();
  }

  /** The cadence under which an event sets the bypass output true, if one can. */
  private Optional<String> bypassCadence(LintRun.LintEvent e) {
    Policy p = run.policy().orElseThrow();
    for (String c : e.cadences()) {
      if (p.cadence(c).map(CadenceDefinition::bypassFastfail).orElse(false)) {
        return Optional.of(c);
      }
    }
    if (e.labelsSwitch() && !e.cadences().isEmpty() && p.workflowLabels().stream().anyMatch(WorkflowLabel::bypassFastfail)) {
      return Optional.of(e.cadences().iterator().next());
    }
    return Optional.empty();
  }
}

package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.policy.Backend;
import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.Suite;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#SUITE_HAS_ONE_JOB}: every suite has exactly one stage job, and a job named like a
 * suite runs a declared one.
 */
final class SuiteHasOneJob implements LintCheck {
  private final LintRun run;

  SuiteHasOneJob(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    if (run.policy().isEmpty()) {
      return;
    }
    suiteHasOneJob(run.declared(), run.allFound() && !run.declared().isEmpty(), out);
  }

  private void suiteHasOneJob(List<LintRun.Declared> declared, boolean complete, List<LintFinding> out) {
    Policy p = run.policy().orElseThrow();
    Map<String, List<String>> jobsOf = new LinkedHashMap<>();
    for (LintRun.Declared d : declared) {
      d.stages().forEach((job, suite) -> {
        List<String> list = jobsOf.computeIfAbsent(suite, k -> new ArrayList<>());
        list.add(d.file() + " job " + job);
        if (list.size() > 1) {
          Job j = d.workflow().job(job).orElseThrow();
          out.add(new LintFinding(LintRule.SUITE_HAS_ONE_JOB, Severity.ERROR, j.location(), Optional.of(job),
              "suite " + suite + " has more than one stage job (" + String.join(", ", list) + "), so it runs twice;"
                  + " keep one job per suite"));
        }
      });
    }
    Set<String> suites = run.suiteNames();
    p.suiteNaming().ifPresent(naming -> {
      for (LintRun.Declared d : declared) {
        for (Job j : d.workflow().jobs()) {
          if (!suites.contains(j.id()) && !d.stages().containsKey(j.id()) && j.id().length() <= 64
              && naming.matchWhole(j.id()).isPresent()) {
            out.add(new LintFinding(LintRule.SUITE_HAS_ONE_JOB, Severity.ERROR, j.location(), Optional.of(j.id()),
                "job " + j.id() + " is named like a suite (" + (naming.description().isEmpty() ? naming.pattern()
                    : naming.description()) + ") but the policy declares no suite " + j.id()
                    + ", so no policy decides what it runs; rename it after a declared suite or declare the suite"));
          }
        }
      }
    });
    if (!complete) {
      return;
    }
    List<String> files = declared.stream().map(LintRun.Declared::file).toList();
    for (Backend b : p.backends()) {
      for (Suite s : b.suites()) {
        if (s.externallyScheduled() || jobsOf.containsKey(s.name())
            || run.registeredSuites().map(r -> !r.contains(s.name())).orElse(false)) {
          continue;
        }
        out.add(new LintFinding(LintRule.SUITE_HAS_ONE_JOB, Severity.ERROR,
            run.policyAt("backends." + b.name() + ".suites." + s.name()), Optional.empty(),
            "suite " + s.name() + " has no stage job in " + files + ", so its tests never run; add a job named "
                + s.name() + " (or map one in roles.stage_jobs), or mark the suite externally_scheduled"));
      }
    }
  }
}

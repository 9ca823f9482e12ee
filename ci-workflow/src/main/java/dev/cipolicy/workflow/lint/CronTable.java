package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.policy.Policy;
import dev.cipolicy.api.policy.ScheduleRule;
import dev.cipolicy.workflow.Trigger;
import dev.cipolicy.workflow.Workflow;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rule {@link LintRule#CRON_TABLE}: the workflows' crons and the policy's schedule table are the same
 * set.
 */
final class CronTable implements LintCheck {
  private final LintRun run;

  CronTable(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    if (run.policy().isEmpty()) {
      return;
    }
    List<Workflow> scheduled = run.declared().isEmpty() ? run.workflows()
        : run.declared().stream().map(LintRun.Declared::workflow).toList();
    cronTable(scheduled, out);
  }

  private void cronTable(List<Workflow> workflows, List<LintFinding> out) {
    Policy p = run.policy().orElseThrow();
    Map<String, ScheduleRule> table = new LinkedHashMap<>();
    p.schedules().forEach(r -> table.putIfAbsent(r.cron(), r));
    Set<String> scheduled = new LinkedHashSet<>();
    for (Workflow w : workflows) {
      Optional<Trigger> t = w.trigger("schedule");
      if (t.isEmpty()) {
        continue;
      }
      for (String cron : t.get().crons()) {
        scheduled.add(cron);
        if (!table.containsKey(cron)) {
          out.add(new LintFinding(LintRule.CRON_TABLE, Severity.ERROR, t.get().location(), Optional.empty(),
              w.file() + " runs on cron '" + cron + "', which the policy's schedule table does not have, so its runs"
                  + " fail to resolve a cadence; add it under schedules with its cadence, or remove it (the table"
                  + " has " + table.keySet() + ")"));
        }
      }
    }
    List<String> files = workflows.stream().map(Workflow::file).toList();
    int i = 0;
    for (ScheduleRule r : p.schedules()) {
      String path = "schedules[" + i++ + "]";
      if (!scheduled.contains(r.cron())) {
        out.add(new LintFinding(LintRule.CRON_TABLE, Severity.ERROR, run.policyAt(path), Optional.empty(),
            "the policy schedules cron '" + r.cron() + "' (cadence " + r.cadence() + ") but no workflow of " + files
                + " runs on it, so that cadence never runs; add `- cron: \"" + r.cron() + "\"` under on.schedule"));
      }
    }
  }
}

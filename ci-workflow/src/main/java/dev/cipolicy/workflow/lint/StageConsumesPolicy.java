package dev.cipolicy.workflow.lint;

import dev.cipolicy.api.SourceLocation;
import dev.cipolicy.workflow.Job;
import dev.cipolicy.workflow.lint.LintFinding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rule {@link LintRule#STAGE_CONSUMES_POLICY}: every stage job needs the policy job and passes its
 * cadence and labels on.
 */
final class StageConsumesPolicy implements LintCheck {
  private final LintRun run;

  StageConsumesPolicy(LintRun run) {
    this.run = run;
  }

  @Override
  public void check(List<LintFinding> out) {
    for (LintRun.Declared d : run.declared()) {
      stageConsumesPolicy(d, out);
    }
  }

  private void stageConsumesPolicy(LintRun.Declared d, List<LintFinding> out) {
    String p = d.policyJob().id();
    for (Map.Entry<String, String> stage : d.stages().entrySet()) {
      Job j = d.workflow().job(stage.getKey()).orElseThrow();
      if (!j.needs().contains(p)) {
        out.add(new LintFinding(LintRule.STAGE_CONSUMES_POLICY, Severity.ERROR, j.location(), Optional.of(j.id()),
            "stage job " + j.id() + " (suite " + stage.getValue() + ") does not need the policy job " + p
                + ", so needs." + p + ".outputs is not there for it; add " + p + " to its needs"));
        continue;
      }
      List<String> missing = new ArrayList<>();
      for (String o : List.of(d.roles().cadenceOutput(), d.roles().labelsOutput())) {
        Pattern ref = Pattern.compile("needs\\s*\\.\\s*" + Pattern.quote(p) + "\\s*\\.\\s*outputs\\s*\\.\\s*"
            + Pattern.quote(o) + "(?![A-Za-z0-9_-])");
        if (j.texts().stream().noneMatch(t -> ref.matcher(t).find())) {
          missing.add(o);
        }
      }
      if (!missing.isEmpty()) {
        List<String> refs = missing.stream().map(o -> "needs." + p + ".outputs." + o).toList();
        SourceLocation at = j.steps().isEmpty() ? j.location() : j.steps().get(j.steps().size() - 1).location();
        out.add(new LintFinding(LintRule.STAGE_CONSUMES_POLICY, Severity.ERROR, at, Optional.of(j.id()),
            "stage job " + j.id() + " runs suite " + stage.getValue() + " without the policy's " + String.join(" and ",
                missing) + "; pass " + String.join(" and ", refs.stream().map(r -> "${{ " + r + " }}").toList())
                + " to the suite command (e.g. --cadence, --labels) so it runs what the policy resolved"));
      }
    }
  }
}
